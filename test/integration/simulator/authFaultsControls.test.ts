import { describe, expect, it } from "vitest";

import { bearerHash } from "../../../src/simulator/http/requestLimiter.ts";
import { startSimulator } from "../../../src/simulator/startSimulator.ts";
import { PE, UM } from "../../support/simulator.ts";
import {
  call,
  createChild,
  createProject,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  settle,
  startTestSimulator,
  type TestSimulator,
  TOKEN,
  useSimulatorWorld,
} from "../../support/simulatorWorld.ts";

let sim: TestSimulator;
useSimulatorWorld((started) => (sim = started));

const resourcesPath = `${UM}/v1/workspaces/${GOLD}/resources`;

describe("bearer checks", () => {
  it("no bearer → 401 {detail: Not authenticated} on both gateways", async () => {
    for (const path of [resourcesPath, `${PE}/v1/languages`]) {
      const response = await call(sim, "GET", path, { token: null });
      expect(response.status).toBe(401);
      expect(response.contentType).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ detail: "Not authenticated" });
    }
  });

  it("a revoked token gets 401; other tokens still work", async () => {
    expect((await call(sim, "GET", resourcesPath, { token: "doomed" })).status).toBe(200);
    await sim.control("/tokens/revoke", { token: "doomed" });
    expect((await call(sim, "GET", resourcesPath, { token: "doomed" })).status).toBe(401);
    expect((await call(sim, "GET", resourcesPath, { token: "other" })).status).toBe(200);
  });

  it("a bound token gets 403 outside its tree, and reaches its workspace and descendants", async () => {
    const a = await createChild(sim, "A");
    const b = await createChild(sim, "B");
    await sim.control("/tokens/bind", { token: "tenant-a", workspaceId: a });
    const mine = await call(sim, "GET", `${UM}/v1/workspaces/${a}/status`, { token: "tenant-a" });
    expect(mine.status).toBe(200);
    const theirs = await call(sim, "GET", `${UM}/v1/workspaces/${b}/status`, { token: "tenant-a" });
    expect(theirs.status).toBe(403);
    expect(theirs.json()).toEqual({ message: "invalid access attempt" });
    const parent = await call(sim, "GET", `${PE}/v1/workspaces/${GOLD}/projects?type=ai`, {
      token: "tenant-a",
    });
    expect(parent.status).toBe(403);
    // 403 is JSON on both gateways, as the documents declare (the text/plain live fact is 400/404/409/500).
    expect(parent.contentType).toMatch(/^application\/json/);
    const grandchild = await createChild(sim, "A1", { parent: a });
    expect((await call(sim, "GET", `${UM}/v1/workspaces/${grandchild}`, { token: "tenant-a" })).status).toBe(
      200,
    );
    // Unbound tokens are unaffected.
    expect((await call(sim, "GET", `${UM}/v1/workspaces/${b}/status`)).status).toBe(200);
  });
});

describe("method errors", () => {
  it("a wrong method on a known path is a JSON 405; an unknown path is a 404", async () => {
    const wrong = await call(sim, "DELETE", resourcesPath);
    expect(wrong.status).toBe(405);
    expect(wrong.contentType).toMatch(/^application\/json/);
    expect(wrong.json()).toEqual({ message: "Method Not Allowed" });
    const pe = await call(sim, "PUT", `${PE}/v1/workspaces/${GOLD}/projects`, { body: {} });
    expect(pe.status).toBe(405);
    expect(pe.json()).toEqual({ message: "Method Not Allowed" });
    const unknown = await call(sim, "GET", `${PE}/v9/nothing`);
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toMatch(/^text\/plain/);
  });
});

describe("fault rules", () => {
  it("answer with the given status, body and content type, `times` times", async () => {
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: "/resources$" },
      action: { status: 503, body: "upstream down", contentType: "text/plain" },
      times: 2,
    });
    const first = await call(sim, "GET", resourcesPath);
    expect(first.status).toBe(503);
    expect(first.text).toBe("upstream down");
    expect((await call(sim, "GET", resourcesPath)).status).toBe(503);
    expect((await call(sim, "GET", resourcesPath)).status).toBe(200);
    expect((await sim.calls()).map((entry) => entry.status)).toEqual([503, 503, 200]);
  });

  it("match on method: other methods pass", async () => {
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "resources" },
      action: { status: 500 },
    });
    expect((await call(sim, "GET", resourcesPath)).status).toBe(200);
  });

  it("a JSON body defaults to application/json; 429 carries Retry-After", async () => {
    await sim.control("/faults", {
      match: { pathPattern: "/languages$" },
      action: { status: 429, body: { message: "slow down" } },
      times: 1,
    });
    const response = await fetch(`${sim.url}${PE}/v1/languages`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toEqual({ message: "slow down" });
  });

  it("the quota 405 can be injected as an HTML body", async () => {
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: { status: 405, body: "<html>405 Not Allowed</html>", contentType: "text/html" },
      times: 1,
    });
    const response = await createProject(sim, GOLD);
    expect(response.status).toBe(405);
    expect(response.contentType).toMatch(/^text\/html/);
    expect((await sim.dump()).projects).toHaveLength(0);
  });

  it("delayMs delays the answer; dropConnection closes the socket (logged with status 0)", async () => {
    await sim.control("/faults", { match: { pathPattern: "/status$" }, action: { delayMs: 150 }, times: 1 });
    const id = await createChild(sim, "Slow");
    const started = performance.now();
    expect((await call(sim, "GET", `${UM}/v1/workspaces/${id}/status`)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    await sim.control("/faults", {
      match: { pathPattern: "/family$" },
      action: { dropConnection: true },
      times: 1,
    });
    await expect(call(sim, "GET", `${UM}/v1/workspaces/${GOLD}/family`)).rejects.toThrow();
    const calls = await sim.calls();
    expect(calls.at(-1)).toMatchObject({
      method: "GET",
      path: `${UM}/v1/workspaces/${GOLD}/family`,
      status: 0,
    });
  });

  it("probability draws from a seeded generator: the same rules replay identically", async () => {
    async function drawStatuses(target: TestSimulator): Promise<number[]> {
      await target.control("/faults", {
        match: { pathPattern: "/languages$" },
        action: { status: 502 },
        probability: 0.5,
      });
      const statuses: number[] = [];
      for (let index = 0; index < 20; index += 1) {
        statuses.push((await call(target, "GET", `${PE}/v1/languages`)).status);
      }
      return statuses;
    }
    const first = await startTestSimulator();
    const second = await startTestSimulator();
    try {
      const statuses = await drawStatuses(first);
      expect(statuses.filter((status) => status === 502).length).toBeGreaterThan(2);
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(2);
      expect(await drawStatuses(second)).toEqual(statuses);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("DELETE /__sim/faults clears every rule", async () => {
    await sim.control("/faults", { match: { pathPattern: "." }, action: { status: 500 } });
    expect((await call(sim, "GET", resourcesPath)).status).toBe(500);
    await sim.control("/faults", undefined, "DELETE");
    expect((await call(sim, "GET", resourcesPath)).status).toBe(200);
  });

  it("an invalid rule or pattern is a 400", async () => {
    await expect(
      sim.control("/faults", { match: { pathPattern: "(" }, action: { status: 500 } }),
    ).rejects.toThrow(/400/);
    await expect(sim.control("/faults", { match: {}, action: {} })).rejects.toThrow(/400/);
  });
});

describe("call log and controls", () => {
  it("records every gateway call in order with the full path, no query, and never the control calls", async () => {
    await call(sim, "GET", `${PE}/v1/workspaces/${GOLD}/projects?type=ai&page=1`);
    await call(sim, "GET", resourcesPath, { token: null });
    await sim.dump();
    await sim.control("/settings", {});
    const calls = await sim.calls();
    expect(calls).toEqual([
      {
        method: "GET",
        path: `${PE}/v1/workspaces/${GOLD}/projects`,
        status: 200,
        at: expect.any(String),
        receivedAt: expect.any(String),
        host: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        group: "projects",
        throttled: false,
        // The account it counted against, by the same hash /__sim/rate names it with.
        account: bearerHash(TOKEN),
      },
      {
        method: "GET",
        path: resourcesPath,
        status: 401,
        at: expect.any(String),
        receivedAt: expect.any(String),
        host: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        group: "workspaces",
        throttled: false,
      },
    ]);
    // A call without a bearer has no account.
    expect(calls[1]).not.toHaveProperty("account");
    expect(Number.isNaN(Date.parse(calls[0]!.at))).toBe(false);
    // Arrival comes before the answer: a test can tell when a call reached the upstream.
    expect(Date.parse(calls[0]!.receivedAt!)).toBeLessThanOrEqual(Date.parse(calls[0]!.at));
    await sim.clearCalls();
    expect(await sim.calls()).toEqual([]);
  });

  it("dump shows the store: workspaces with status, parent_id (null for a root), limits_enabled, resources; projects; calls", async () => {
    await createProject(sim, GOLD);
    const dump = await sim.dump();
    expect(dump.workspaces).toEqual([
      {
        id: GOLD,
        title: "Gold parent workspace",
        status: "created",
        settles_to: "created",
        parent_id: null,
        limits_enabled: { ai: true },
        resources: {
          projects: { used: 0, drafted: 1, total: 13 },
          prompts: { used: 0, drafted: 0, total: 800 },
        },
      },
    ]);
    expect(dump.projects).toHaveLength(1);
    expect(dump.projects[0]).toMatchObject({ workspace_id: GOLD, staged: { projects: 1, prompts: 0 } });
    expect(dump.calls).toBe(1);
  });

  it("a dump re-seeds to the same store", async () => {
    const child = await createChild(sim, "Kept", { allocation: { projects: 2, prompts: 100 } });
    await settle(sim, child);
    await createProject(sim, child);
    const before = await sim.dump();
    await sim.control("/seed", { seed: "empty" });
    expect((await sim.dump()).workspaces).toEqual([]);
    await sim.control("/seed", before);
    const after = await sim.dump();
    expect(after.workspaces).toEqual(before.workspaces);
    expect(after.projects).toEqual(before.projects);
    expect(await sim.totals(child)).toEqual({ projects: 2, prompts: 100 });
  });

  it("/quota sets totals and usage; /settings reads back; reset restores seed and settings", async () => {
    await sim.control("/quota", { workspaceId: GOLD, projects: 20, prompts: { total: 900, used: 5 } });
    expect(await sim.totals(GOLD)).toEqual({ projects: 20, prompts: 900 });
    const settings = await sim.control<Record<string, unknown>>("/settings", {
      settleReads: 0,
      latencyMs: 0,
    });
    expect(settings).toMatchObject({ settleMode: "reads", settleReads: 0 });
    await expect(sim.control("/settings", { nonsense: 1 })).rejects.toThrow(/400/);
    await sim.control("/reset", {});
    expect(await sim.totals(GOLD)).toEqual({ projects: 13, prompts: 800 });
    expect(await sim.control("/settings")).toMatchObject({ settleReads: 2 });
    await expect(sim.control("/quota", { workspaceId: "nope", projects: 1 })).rejects.toThrow(/404/);
  });

  it("latencyMs delays every gateway call but not the controls", async () => {
    await sim.control("/settings", { latencyMs: 100 });
    const started = performance.now();
    await call(sim, "GET", `${PE}/v1/languages`);
    // A lower bound only: a loaded machine can make the call slower, never faster.
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    // With a latency far beyond the test's timeout, the controls still answer: they are not delayed.
    await sim.control("/settings", { latencyMs: 3_600_000 });
    expect(Array.isArray(await sim.calls())).toBe(true);
    await sim.control("/settings", { latencyMs: 0 });
  });

  it("controls are absent unless enabled", async () => {
    const closed = await startSimulator({ seed: "gold" });
    try {
      const response = await fetch(`${closed.url}/__sim/dump`);
      expect(response.status).toBe(404);
      const reset = await fetch(`${closed.url}/__sim/reset`, { method: "POST" });
      expect(reset.status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});
