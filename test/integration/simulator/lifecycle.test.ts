import { describe, expect, it } from "vitest";

import { UM } from "../../support/simulator.ts";
import {
  call,
  createChild,
  createProject,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  settle,
  startTestSimulator,
  type TestSimulator,
  useSimulatorWorld,
} from "../../support/simulatorWorld.ts";

let sim: TestSimulator;
useSimulatorWorld((started) => (sim = started));

const status = async (target: TestSimulator, id: string) =>
  (await call(target, "GET", `${UM}/v1/workspaces/${id}/status`)).json().status;

describe("sub-workspace lifecycle", () => {
  it("create answers 200 {id, title, status: not ready, parent_id}; status settles after settleReads reads", async () => {
    const response = await call(sim, "POST", `${UM}/v2/workspaces/${GOLD}/child`, {
      body: { title: "Brand A", resources: {} },
    });
    expect(response.status).toBe(200);
    const body = response.json();
    expect(body).toEqual({ id: expect.any(String), title: "Brand A", status: "not ready", parent_id: GOLD });
    expect(await status(sim, body.id)).toBe("not ready");
    expect(await status(sim, body.id)).toBe("not ready");
    expect(await status(sim, body.id)).toBe("created");
    expect(await status(sim, body.id)).toBe("created");
  });

  it("requires resources in the create body (may be empty) and 403s an unknown parent", async () => {
    const missing = await call(sim, "POST", `${UM}/v2/workspaces/${GOLD}/child`, { body: { title: "x" } });
    expect(missing.status).toBe(422);
    const unknown = await call(sim, "POST", `${UM}/v2/workspaces/nope/child`, {
      body: { title: "x", resources: {} },
    });
    expect(unknown.status).toBe(403);
    expect(unknown.json()).toEqual({ message: "invalid access attempt" });
  });

  it("settles by time in time mode", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const timed = await startTestSimulator({
      now: () => now,
      settings: { settleMode: "time", settleMs: 5000 },
    });
    try {
      const id = await createChild(timed, "Timed");
      expect(await status(timed, id)).toBe("not ready");
      now += 4999;
      expect(await status(timed, id)).toBe("not ready");
      now += 1;
      expect(await status(timed, id)).toBe("created");
    } finally {
      await timed.close();
    }
  });

  it("/__sim/status makes the next N reads say not ready", async () => {
    const id = await createChild(sim, "Flaky");
    await settle(sim, id);
    await sim.control("/status", { workspaceId: id, notReadyReads: 1 });
    expect(await status(sim, id)).toBe("not ready");
    expect(await status(sim, id)).toBe("created");
  });

  it("a terminal status can be set on a workspace or by title for creates to come", async () => {
    const existing = await createChild(sim, "Broken");
    await sim.control("/status", { workspaceId: existing, status: "creation failed", notReadyReads: 0 });
    expect(await status(sim, existing)).toBe("creation failed");

    await sim.control("/status", { title: "Doomed", status: "invalid subscription" });
    const doomed = await createChild(sim, "Doomed");
    expect(await settle(sim, doomed)).toBe("invalid subscription");
    const other = await createChild(sim, "Fine");
    expect(await settle(sim, other)).toBe("created");
  });

  it("a zombie never settles and cannot be deleted", async () => {
    await sim.control("/status", { title: "Zombie", status: "not ready" });
    const zombie = await createChild(sim, "Zombie");
    for (let read = 0; read < 10; read += 1) expect(await status(sim, zombie)).toBe("not ready");
    const deleted = await call(sim, "DELETE", `${UM}/v1/workspaces/${zombie}`);
    expect(deleted.status).toBe(422);
    expect(deleted.json()).toEqual({ message: "workspace not ready" });
    expect((await sim.dump()).workspaces.find((workspace) => workspace.id === zombie)).toMatchObject({
      status: "not ready",
      settles_to: "not ready",
    });
  });

  it('family returns the workspace and all descendants as a bare array; a root\'s parent_id is ""', async () => {
    const a = await createChild(sim, "A");
    await settle(sim, a);
    const b = await createChild(sim, "B");
    const a1 = await createChild(sim, "A1", { parent: a });
    const response = await call(sim, "GET", `${UM}/v1/workspaces/${GOLD}/family`);
    expect(response.status).toBe(200);
    const family = response.json();
    expect(Array.isArray(family)).toBe(true);
    expect(family.map((entry: { id: string }) => entry.id)).toEqual([GOLD, a, b, a1]);
    expect(family[0]).toEqual({
      id: GOLD,
      title: "Gold parent workspace",
      status: "created",
      // A string, as the documents type it (live's value for a root is not pinned; a live-calibrated mock answers "").
      parent_id: "",
    });
    expect(family[3]).toMatchObject({ title: "A1", parent_id: a });
    const sub = (await call(sim, "GET", `${UM}/v1/workspaces/${a}/family`)).json();
    expect(sub.map((entry: { id: string }) => entry.id)).toEqual([a, a1]);
    expect((await call(sim, "GET", `${UM}/v1/workspaces/nope/family`)).status).toBe(403);
  });

  it("family entries count as status observations, so adoption by family alone sees the workspace settle", async () => {
    const id = await createChild(sim, "Adoptable");
    const statusIn = async () =>
      (await call(sim, "GET", `${UM}/v1/workspaces/${GOLD}/family`))
        .json()
        .find((entry: { id: string }) => entry.id === id).status;
    expect(await statusIn()).toBe("not ready");
    expect(await statusIn()).toBe("not ready");
    expect(await statusIn()).toBe("created");
  });

  it("GET workspace shows the root's ai limits_enabled where the published document puts it", async () => {
    const id = await createChild(sim, "Child");
    await settle(sim, id);
    const response = await call(sim, "GET", `${UM}/v1/workspaces/${id}`);
    expect(response.json()).toMatchObject({
      id,
      title: "Child",
      status: "created",
      parent_id: GOLD,
      product_tiers: [{ product: { id: "ai", limits_enabled: true } }],
    });
    // Not the top-level `limits_enabled` the published handlers.workspaceResponse does not have.
    expect(response.json()).not.toHaveProperty("limits_enabled");
  });

  it("afterCommit504: the create commits, then the gateway answers 504", async () => {
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { afterCommit504: true },
      times: 1,
    });
    const response = await call(sim, "POST", `${UM}/v2/workspaces/${GOLD}/child`, {
      body: { title: "Timed out", resources: { ai: { projects: 1 } } },
    });
    expect(response.status).toBe(504);
    expect(response.contentType).toMatch(/^text\/html/);
    const family = (await call(sim, "GET", `${UM}/v1/workspaces/${GOLD}/family`)).json();
    expect(family.filter((entry: { title: string }) => entry.title === "Timed out")).toHaveLength(1);
    expect(await sim.totals(GOLD)).toEqual({ projects: 12, prompts: 800 });
    // times: 1 — the next create answers normally.
    const next = await call(sim, "POST", `${UM}/v2/workspaces/${GOLD}/child`, {
      body: { title: "Next", resources: {} },
    });
    expect(next.status).toBe(200);
    const calls = await sim.calls();
    expect(calls.filter((entry) => entry.method === "POST").map((entry) => entry.status)).toEqual([504, 200]);
  });

  it("a deleted workspace may read deleting for a while (deletingReads), then 403", async () => {
    await sim.control("/settings", { deletingReads: 1 });
    const id = await createChild(sim, "Short-lived");
    await settle(sim, id);
    expect((await call(sim, "DELETE", `${UM}/v1/workspaces/${id}`)).json()).toEqual({ id });
    expect(await status(sim, id)).toBe("deleting");
    const gone = await call(sim, "GET", `${UM}/v1/workspaces/${id}/status`);
    expect(gone.status).toBe(403);
    expect((await call(sim, "GET", `${UM}/v1/workspaces/${id}`)).status).toBe(403);
  });

  it("deleting a workspace removes its projects", async () => {
    const id = await createChild(sim, "With project", { allocation: { projects: 1 } });
    await settle(sim, id);
    expect((await createProject(sim, id)).status).toBe(201);
    await call(sim, "DELETE", `${UM}/v1/workspaces/${id}`);
    expect((await sim.dump()).projects).toHaveLength(0);
  });
});
