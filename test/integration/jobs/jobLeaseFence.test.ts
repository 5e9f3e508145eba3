import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { defineJobHandler, type JobContext } from "../../../src/jobs/handler.ts";
import { LeaseLostError } from "../../../src/jobs/jobError.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, deferred, type JobWorld } from "../../support/jobWorld.ts";
import { drive } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { track } from "../../support/wait.ts";

/**
 * A job delivery writes upstream only while its lease is held (spec/provisioning.md §10,
 * docs/decisions/0023): a handler still running past its timeout — one that ignores its signal —
 * keeps its lease only while the runner still waits for it; once the runner gives up on it, its
 * next write is refused before it is sent. The next delivery then does the work once. The real
 * gateway client over HTTP against the simulator, whose call log counts the writes; time on the
 * job world's manual clock.
 */
const TOKEN = "job-fence-token";
const TIMEOUT_MS = 5_000;
const TTL_MS = 10_000;

let db: TestDatabase;
let h: JobWorld;
let sim: TestSimulator;
let client: GatewayClient;
const deliveries: {
  started: ReturnType<typeof deferred<void>>;
  proceed: ReturnType<typeof deferred<void>>;
  saw?: unknown;
}[] = [];

const writer = defineJobHandler({
  type: "fenced-writer",
  publicType: "fencedWriterJob",
  timeoutMs: TIMEOUT_MS,
  leaseTtlMs: TTL_MS,
  maxAttempts: 3,
  async handle(ctx: JobContext) {
    const delivery = deliveries[ctx.attempt - 1]!;
    await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, { title: `first ${ctx.job.id}` });
    delivery.started.resolve();
    await delivery.proceed.promise; // ignores its abort signal on purpose
    try {
      await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, {
        title: `second ${ctx.job.id}`,
      });
      delivery.saw = "written";
    } catch (error) {
      delivery.saw = error;
      throw error;
    }
    return { written: true };
  },
});

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [writer]);
  sim = await startTestSimulator({ seed: "gold" });
  client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
    clock: { now: () => new Date(), sleep: async () => undefined },
    timeoutMs: 5_000,
  });
});
afterAll(async () => {
  await client.close();
  await sim.close();
  await h.close();
  await db.destroy();
});

const childCreates = async () =>
  (await sim.calls()).filter(
    (call) => call.method === "POST" && /\/v2\/workspaces\/[^/]+\/child$/.test(call.path),
  ).length;

describe("the job lease's write fence", () => {
  it("refuses a late write of a delivery the runner stopped waiting for; the next delivery writes once", async () => {
    await sim.clearCalls();
    for (let i = 0; i < 2; i++) deliveries.push({ started: deferred<void>(), proceed: deferred<void>() });
    const id = randomUUID();
    await insertJob(db.db, {
      id,
      type: writer.type,
      orgId: randomUUID(),
      brandId: null,
      metadata: {},
      credentialId: null,
      createdBy: "user-1",
      now: h.clock.databaseTime(),
    });
    await h.queue.enqueue(id);
    const first = h.worker().pollOnce();
    await deliveries[0]!.started.promise;
    expect(await childCreates()).toBe(1);

    // Its timeout: the signal fires, the handler carries on; the heartbeat keeps renewing (two
    // sleepers: the heartbeat and the runner's grace) until the grace (TTL − timeout) ends.
    const round = track(first);
    await drive(h.clock, TTL_MS, 1_000, { sleepers: 2, done: () => round.settled });
    await first;
    // The runner gave the lease back for a retry and stopped renewing it.
    expect((await h.job(id)).leaseToken).toBeNull();
    deliveries[0]!.proceed.resolve();
    await expect.poll(() => deliveries[0]!.saw).toBeInstanceOf(LeaseLostError);
    expect(await childCreates()).toBe(1);

    await h.makeDue();
    deliveries[1]!.proceed.resolve();
    await h.worker().pollOnce();
    expect(deliveries[1]!.saw).toBe("written");
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", attempts: 2 });
    // The first delivery's one write, then the second delivery's two: its late write never went.
    expect(await childCreates()).toBe(3);
  });
});
