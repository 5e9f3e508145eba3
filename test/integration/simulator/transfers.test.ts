import { describe, expect, it } from "vitest";

import { UM } from "../../support/simulator.ts";
import {
  call,
  createChild,
  createProject,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  resources,
  settle,
  type TestSimulator,
  transfer,
  useSimulatorWorld,
} from "../../support/simulatorWorld.ts";

let sim: TestSimulator;
useSimulatorWorld((started) => (sim = started));

async function settledChild(title = "Brand A") {
  const id = await createChild(sim, title);
  expect(await settle(sim, id)).toBe("created");
  return id;
}

describe("absolute transfers between a sub-workspace and its parent", () => {
  it("moves the parent from {13, 800} to {10, 500} when a child goes from 0 to {3, 300}", async () => {
    const child = await settledChild();
    expect(await sim.totals(GOLD)).toEqual({ projects: 13, prompts: 800 });
    expect(await sim.totals(child)).toEqual({ projects: 0, prompts: 0 });

    const response = await transfer(sim, child, { projects: 3, prompts: 300 });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ id: child, parent_id: GOLD, status: "created" });
    expect(await sim.totals(child)).toEqual({ projects: 3, prompts: 300 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 10, prompts: 500 });
  });

  it("repeating the same transfer moves nothing (absolute, idempotent)", async () => {
    const child = await settledChild();
    expect((await transfer(sim, child, { projects: 3, prompts: 300 })).status).toBe(200);
    expect((await transfer(sim, child, { projects: 3, prompts: 300 })).status).toBe(200);
    expect(await sim.totals(child)).toEqual({ projects: 3, prompts: 300 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 10, prompts: 500 });
  });

  it("lowering a total returns the difference to the parent; omitted dimensions are untouched", async () => {
    const child = await settledChild();
    await transfer(sim, child, { projects: 5, prompts: 800 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 8, prompts: 0 });
    expect((await transfer(sim, child, { prompts: 100 })).status).toBe(200);
    expect(await sim.totals(child)).toEqual({ projects: 5, prompts: 100 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 8, prompts: 700 });
  });

  it("asking for more than the parent's free units moves nothing and answers 422 insufficient units", async () => {
    const child = await settledChild();
    const response = await transfer(sim, child, { projects: 2, prompts: 801 });
    expect(response.status).toBe(422);
    expect(response.contentType).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ message: "insufficient available units in subscription" });
    // All or nothing: the projects dimension, which alone would fit, did not move either.
    expect(await sim.totals(child)).toEqual({ projects: 0, prompts: 0 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 13, prompts: 800 });
  });

  it("the parent's free units are total − used: published usage on the parent limits transfers", async () => {
    await sim.control("/quota", {
      workspaceId: GOLD,
      projects: { used: 10 },
      prompts: { used: 700, drafted: 50 },
    });
    const child = await settledChild();
    expect((await transfer(sim, child, { projects: 4 })).status).toBe(422);
    // drafted is not counted: 800 − 700 = 100 free even with 50 drafted.
    expect((await transfer(sim, child, { projects: 3, prompts: 100 })).status).toBe(200);
    expect(await sim.totals(GOLD)).toEqual({ projects: 10, prompts: 700 });
  });

  it("setting a dimension to 0 is silently ignored (2xx, nothing moves)", async () => {
    const child = await settledChild();
    await transfer(sim, child, { projects: 3, prompts: 300 });
    const response = await transfer(sim, child, { projects: 0, prompts: 0 });
    expect(response.status).toBe(200);
    expect(await sim.totals(child)).toEqual({ projects: 3, prompts: 300 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 10, prompts: 500 });

    const mixed = await transfer(sim, child, { projects: 0, prompts: 200 });
    expect(mixed.status).toBe(200);
    expect(await sim.totals(child)).toEqual({ projects: 3, prompts: 200 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 10, prompts: 600 });
  });

  it("answers 422 workspace not ready while the sub-workspace settles, then accepts", async () => {
    const child = await createChild(sim, "Settling");
    const early = await transfer(sim, child, { projects: 1 });
    expect(early.status).toBe(422);
    expect(early.json()).toEqual({ message: "workspace not ready" });
    expect(await sim.totals(GOLD)).toEqual({ projects: 13, prompts: 800 });
    await settle(sim, child);
    expect((await transfer(sim, child, { projects: 1 })).status).toBe(200);
  });

  it("can keep answering not ready for a few transfers after the status reads created (notReadyTransfers)", async () => {
    await sim.control("/settings", { notReadyTransfers: 2 });
    const child = await settledChild();
    expect((await transfer(sim, child, { projects: 1 })).json()).toEqual({ message: "workspace not ready" });
    expect((await transfer(sim, child, { projects: 1 })).status).toBe(422);
    expect((await transfer(sim, child, { projects: 1 })).status).toBe(200);
    expect(await sim.totals(child)).toEqual({ projects: 1, prompts: 0 });
  });

  it("a transfer on a root workspace or an unknown one is 403", async () => {
    const root = await transfer(sim, GOLD, { projects: 1 });
    expect(root.status).toBe(403);
    expect(root.json()).toEqual({ message: "invalid access attempt" });
    expect((await transfer(sim, "no-such-workspace", { projects: 1 })).status).toBe(403);
  });

  it("a sub-workspace created with an allocation carves it from the parent, or 422 when it cannot", async () => {
    const child = await createChild(sim, "Carved", { allocation: { projects: 2, prompts: 200 } });
    expect(await sim.totals(child)).toEqual({ projects: 2, prompts: 200 });
    expect(await sim.totals(GOLD)).toEqual({ projects: 11, prompts: 600 });

    const tooBig = await call(sim, "POST", `${UM}/v2/workspaces/${GOLD}/child`, {
      body: { title: "Too big", resources: { ai: { projects: 12 } } },
    });
    expect(tooBig.status).toBe(422);
    expect(tooBig.json()).toEqual({ message: "insufficient available units in subscription" });
    expect((await sim.dump()).workspaces.map((workspace) => workspace.title)).not.toContain("Too big");
  });

  it("metered writes in a sub-workspace spend its own allocation, not the parent's", async () => {
    const child = await settledChild();
    const refused = await createProject(sim, child);
    expect(refused.status).toBe(405);
    await transfer(sim, child, { projects: 1 });
    expect((await createProject(sim, child)).status).toBe(201);
    const childResources = await resources(sim, child);
    expect(childResources.projects).toEqual({ used: 0, drafted: 1, total: 1 });
    expect((await resources(sim, GOLD)).projects).toEqual({ used: 0, drafted: 0, total: 12 });
  });

  it("deleting a sub-workspace returns its allocation to the parent and cascades", async () => {
    const child = await settledChild();
    await transfer(sim, child, { projects: 3, prompts: 300 });
    const grandchild = await createChild(sim, "Grandchild", {
      parent: child,
      allocation: { projects: 1, prompts: 100 },
    });
    await settle(sim, grandchild);
    expect(await sim.totals(child)).toEqual({ projects: 2, prompts: 200 });

    const deleted = await call(sim, "DELETE", `${UM}/v1/workspaces/${child}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json()).toEqual({ id: child });
    expect(await sim.totals(GOLD)).toEqual({ projects: 13, prompts: 800 });
    expect((await call(sim, "GET", `${UM}/v1/workspaces/${grandchild}/status`)).status).toBe(403);
  });
});
