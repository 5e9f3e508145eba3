import { setTimeout as sleep } from "node:timers/promises";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { EventBus, type ServiceEvents } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { UM } from "../../support/simulator.ts";

/**
 * A caller's abort signal on a gateway call (GatewayRequest.signal): the real client over real HTTP
 * against the simulator, whose fault rules make the upstream slow or failing. An abort ends the
 * call at once, is never retried and rejects with the signal's own reason (never `unavailable`).
 */
const TOKEN = "contract-user-token";
const PARENT = GOLD_PARENT_WORKSPACE_ID;
const STATUS_PATH = `${UM}/v1/workspaces/[^/]+/status$`;
const CHILD_PATH = `${UM}/v2/workspaces/[^/]+/child$`;

let sim: TestSimulator;
let client: GatewayClient;
let clock: ManualClock;
let attempts: ServiceEvents["gateway.request"][];

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold" });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  await client?.close();
  await sim.control("/faults", undefined, "DELETE");
  await sim.clearCalls();
  clock = new ManualClock();
  attempts = [];
  const events = new EventBus();
  events.on("gateway.request", (event) => attempts.push(event));
  client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events,
    logger: createLogger({ level: "silent" }),
    clock,
    timeoutMs: 5_000,
    random: () => 0.5,
  });
});

class Abandoned extends Error {}

/** Polls a condition on observed state; the deadline only guards against a hang. */
async function observed(condition: () => boolean, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not observed in time");
    await sleep(5);
  }
}

/** The one-shot slow fault was taken: the request reached the simulator and is being held. */
const requestArrived = () => observed(() => sim.simulator.faults.size === 0);

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error("expected the call to reject"),
    (error: unknown) => error,
  );
}

async function callsMatching(pattern: string) {
  const regex = new RegExp(pattern);
  return (await sim.calls()).filter((call) => regex.test(call.path));
}

describe("a caller's abort signal", () => {
  it("ends a slow GET at once with the signal's reason and never retries it", async () => {
    // The upstream would answer in ten minutes, past the client's own 5 s timeout: only the abort
    // can end the call with its reason before the test's deadline.
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: STATUS_PATH },
      action: { delayMs: 600_000 },
      times: 1,
    });
    const controller = new AbortController();
    const reason = new Abandoned("the job timed out");
    const call = rejectionOf(client.users.getStatus(TOKEN, PARENT, { signal: controller.signal }));
    await requestArrived();
    controller.abort(reason);
    expect(await call).toBe(reason);
    // One attempt, counted as abandoned (499), not as a 504/0 upstream failure; no retry wait.
    expect(attempts.map((attempt) => attempt.status)).toEqual([499]);
    expect(clock.pendingSleeps).toBe(0);
  });

  it("without a signal the same slow GET is retried after its timeout (the contrast)", async () => {
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: STATUS_PATH },
      action: { delayMs: 400 },
      times: 1,
    });
    const fast = createGatewayClient({
      projectsBaseUrl: sim.url,
      usersBaseUrl: sim.url,
      events: new EventBus(),
      logger: createLogger({ level: "silent" }),
      clock: { now: () => new Date(), sleep: async () => undefined },
      timeoutMs: 100,
    });
    try {
      expect(await fast.users.getStatus(TOKEN, PARENT)).toBe("created");
    } finally {
      await fast.close();
    }
  });

  it("ends a slow POST at once; the abort reason is not an `unavailable` GatewayError", async () => {
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: CHILD_PATH },
      action: { delayMs: 600_000 },
      times: 1,
    });
    const controller = new AbortController();
    const call = rejectionOf(
      client.users.createSubWorkspace(TOKEN, PARENT, { title: "abandoned" }, { signal: controller.signal }),
    );
    await requestArrived();
    controller.abort();
    const error = await call;
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe("AbortError");
    expect(attempts.map((attempt) => attempt.status)).toEqual([499]);
  });

  it("an abort during the retry wait rejects at once and sends no retry", async () => {
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: STATUS_PATH },
      action: { status: 503, body: "busy" },
    });
    const controller = new AbortController();
    const reason = new Abandoned("shutdown");
    const call = rejectionOf(client.users.getStatus(TOKEN, PARENT, { signal: controller.signal }));
    // The first answer (503) arrived and the transport waits on the clock before its retry.
    await clock.untilSleeping();
    expect(clock.pendingSleeps).toBe(1);
    controller.abort(reason);
    expect(await call).toBe(reason);
    expect(clock.pendingSleeps).toBe(0);
    expect((await callsMatching(STATUS_PATH)).map((c) => c.status)).toEqual([503]);
    expect(attempts.map((attempt) => attempt.status)).toEqual([503]);
  });

  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    const reason = new Abandoned("gone before the call");
    controller.abort(reason);
    expect(await rejectionOf(client.users.getFamily(TOKEN, PARENT, { signal: controller.signal }))).toBe(
      reason,
    );
    expect(
      await rejectionOf(client.projects.listProjects(TOKEN, PARENT, {}, { signal: controller.signal })),
    ).toBe(reason);
    expect(
      await rejectionOf(client.projects.deleteProject(TOKEN, PARENT, "p1", { signal: controller.signal })),
    ).toBe(reason);
    expect(attempts).toEqual([]);
    expect(await sim.calls()).toEqual([]);
  });

  it("a signal that never fires changes nothing", async () => {
    const controller = new AbortController();
    expect(await client.users.getStatus(TOKEN, PARENT, { signal: controller.signal })).toBe("created");
    const family = await client.users.getFamily(TOKEN, PARENT, { signal: controller.signal });
    expect(family.some((workspace) => workspace.id === PARENT)).toBe(true);
  });
});
