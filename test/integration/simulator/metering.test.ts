import { describe, expect, it } from "vitest";

import { NGINX_405_PAGE } from "../../../src/simulator/http/responses.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { catalogueModelId, UM } from "../../support/simulator.ts";
import {
  call,
  createChild,
  createProject,
  createPrompts,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  patchPrimaryUrl,
  projectPath,
  publish,
  resources,
  settle,
  startTestSimulator,
  type TestSimulator,
  transfer,
  useSimulatorWorld,
} from "../../support/simulatorWorld.ts";

let sim: TestSimulator;
useSimulatorWorld((started) => (sim = started));

async function newProject(workspaceId = GOLD): Promise<string> {
  const response = await createProject(sim, workspaceId);
  expect(response.status).toBe(201);
  return response.json().id;
}

function expectQuota405(response: { status: number; contentType: string; text: string }) {
  expect(response.status).toBe(405);
  expect(response.contentType).toMatch(/^text\/html/);
  expect(response.text).toBe(NGINX_405_PAGE);
  expect(response.text).not.toMatch(/quota|limit|units/i);
}

describe("metering on a metered workspace", () => {
  it("project create needs used + drafted + 1 ≤ total and stages one project", async () => {
    await sim.control("/quota", { workspaceId: GOLD, projects: { total: 3, used: 1, drafted: 1 } });
    await newProject();
    expect((await resources(sim, GOLD)).projects).toEqual({ used: 1, drafted: 2, total: 3 });
    expectQuota405(await createProject(sim, GOLD));
    expect((await resources(sim, GOLD)).projects).toEqual({ used: 1, drafted: 2, total: 3 });
  });

  it("the gold pool takes exactly 13 projects", async () => {
    for (let index = 0; index < 13; index += 1) await newProject();
    expectQuota405(await createProject(sim, GOLD));
    expect((await sim.dump()).projects).toHaveLength(13);
  });

  it("a prompt batch costs k new texts × m models, and one that would pass the total is refused whole", async () => {
    const project = await newProject();
    // A new project has one model: 3 texts cost 3 units.
    expect((await createPrompts(sim, GOLD, project, ["a", "b", "c"])).status).toBe(201);
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 3, total: 800 });

    await sim.control("/quota", { workspaceId: GOLD, prompts: 10 });
    const batch = Array.from({ length: 8 }, (_, index) => `text ${index}`);
    expectQuota405(await createPrompts(sim, GOLD, project, batch));
    // Nothing of the batch was created, though 7 of its 8 texts would have fit.
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 3, total: 10 });
    const listed = await call(
      sim,
      "POST",
      `${projectPath(GOLD, project, "v2")}/aio/prompts/by_tags?draft=true`,
      {
        body: { tag_ids: [], page: 1, limit: 200 },
      },
    );
    expect(listed.json().total).toBe(3);
    expect((await createPrompts(sim, GOLD, project, batch.slice(0, 7))).status).toBe(201);
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 10, total: 10 });
  });

  it("texts already in the project consume nothing and come back is_new:false", async () => {
    const project = await newProject();
    await createPrompts(sim, GOLD, project, ["alpha", "beta"]);
    await sim.control("/quota", { workspaceId: GOLD, prompts: 3 });
    const response = await createPrompts(sim, GOLD, project, ["alpha", "beta", "gamma"]);
    expect(response.status).toBe(201);
    const body = response.json();
    expect(body.existing_count).toBe(2);
    expect(body.items.map((item: { name: string; is_new: boolean }) => [item.name, item.is_new])).toEqual([
      ["alpha", false],
      ["beta", false],
      ["gamma", true],
    ]);
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 3, total: 3 });
  });

  it("prompt units scale with the model count; adding a model to t texts needs t units", async () => {
    const project = await newProject();
    await createPrompts(sim, GOLD, project, ["one", "two", "three", "four"]);
    expect((await resources(sim, GOLD)).prompts.drafted).toBe(4);

    await sim.control("/quota", { workspaceId: GOLD, prompts: 7 });
    const models = `${projectPath(GOLD, project, "v2")}/ai_models`;
    expectQuota405(await call(sim, "POST", models, { body: { model_id: catalogueModelId("gpt-5") } }));
    await sim.control("/quota", { workspaceId: GOLD, prompts: 8 });
    const added = await call(sim, "POST", models, { body: { model_id: catalogueModelId("gpt-5") } });
    expect(added.status).toBe(201);
    expect(added.json()).toMatchObject({
      model: { id: catalogueModelId("gpt-5"), key: "gpt-5" },
      prompts_count: 4,
    });
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 8, total: 8 });

    // Two models now: one more text costs 2.
    await sim.control("/quota", { workspaceId: GOLD, prompts: 9 });
    expectQuota405(await createPrompts(sim, GOLD, project, ["five"]));
    await sim.control("/quota", { workspaceId: GOLD, prompts: 10 });
    expect((await createPrompts(sim, GOLD, project, ["five"])).status).toBe(201);
    expect((await resources(sim, GOLD)).prompts.drafted).toBe(10);
  });

  it("publish moves the project's staged units from drafted to used", async () => {
    const project = await newProject();
    await createPrompts(sim, GOLD, project, ["a", "b"]);
    await patchPrimaryUrl(sim, GOLD, project);
    expect((await publish(sim, GOLD, project)).status).toBe(202);
    const after = await resources(sim, GOLD);
    expect(after.projects).toEqual({ used: 1, drafted: 0, total: 13 });
    expect(after.prompts).toEqual({ used: 2, drafted: 0, total: 800 });
  });

  it("with usedLagReads, reads right after a publish show used low while drafted already dropped", async () => {
    await sim.control("/settings", { usedLagReads: 2 });
    const project = await newProject();
    await createPrompts(sim, GOLD, project, ["a", "b", "c"]);
    await patchPrimaryUrl(sim, GOLD, project);
    await publish(sim, GOLD, project);
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 0, total: 800 });
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 0, total: 800 });
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 3, drafted: 0, total: 800 });
    // The dump shows the truth at any time.
    expect((await sim.dump()).workspaces[0]!.resources.prompts.used).toBe(3);
  });

  it("publish is refused with the HTML 405 when a staged dimension is already over its total", async () => {
    const project = await newProject();
    await createPrompts(sim, GOLD, project, ["a", "b"]);
    await patchPrimaryUrl(sim, GOLD, project);
    await sim.control("/quota", { workspaceId: GOLD, prompts: 1 });
    expectQuota405(await publish(sim, GOLD, project));
    expect((await resources(sim, GOLD)).prompts).toEqual({ used: 0, drafted: 2, total: 1 });
  });

  it("deletes return units: prompts (m each), models (t each) and whole projects", async () => {
    const project = await newProject();
    const created = await createPrompts(sim, GOLD, project, ["a", "b", "c"]);
    const models = `${projectPath(GOLD, project, "v2")}/ai_models`;
    const assignment = (
      await call(sim, "POST", models, { body: { model_id: catalogueModelId("google-ai-overview") } })
    ).json().id;
    expect((await resources(sim, GOLD)).prompts.drafted).toBe(6);

    const promptIds = created.json().items.map((item: { id: string }) => item.id);
    const deleted = await call(sim, "DELETE", `${projectPath(GOLD, project, "v2")}/aio/prompts`, {
      body: { ids: [promptIds[0], "unknown-id"] },
    });
    expect(deleted.status).toBe(204);
    expect((await resources(sim, GOLD)).prompts.drafted).toBe(4);

    const removed = await call(sim, "DELETE", `${projectPath(GOLD, project)}/ai_models`, {
      body: { ids: [assignment] },
    });
    expect(removed.status).toBe(204);
    expect((await resources(sim, GOLD)).prompts.drafted).toBe(2);

    await patchPrimaryUrl(sim, GOLD, project);
    await publish(sim, GOLD, project);
    expect((await call(sim, "DELETE", projectPath(GOLD, project))).status).toBe(204);
    const after = await resources(sim, GOLD);
    expect(after.projects).toEqual({ used: 0, drafted: 0, total: 13 });
    expect(after.prompts).toEqual({ used: 0, drafted: 0, total: 800 });
  });
});

describe("unmetered workspaces", () => {
  it("accept every write whatever their totals, still counting usage", async () => {
    await sim.control("/seed", { seed: "unmetered" });
    for (let index = 0; index < 14; index += 1) {
      expect((await createProject(sim, UNMETERED_PARENT_WORKSPACE_ID)).status).toBe(201);
    }
    expect((await resources(sim, UNMETERED_PARENT_WORKSPACE_ID)).projects).toEqual({
      used: 0,
      drafted: 14,
      total: 13,
    });
  });

  it("follow the root: a sub-workspace of an unmetered parent is unmetered, and /quota metered flips it", async () => {
    await sim.control("/seed", { seed: "unmetered" });
    const child = await createChild(sim, "Free", { parent: UNMETERED_PARENT_WORKSPACE_ID });
    await settle(sim, child);
    expect((await createProject(sim, child)).status).toBe(201);
    const aiProduct = async (id: string) =>
      (await call(sim, "GET", `${UM}/v1/workspaces/${id}`)).json().product_tiers[0].product;
    expect(await aiProduct(child)).toMatchObject({ id: "ai", limits_enabled: false });
    expect(await aiProduct(UNMETERED_PARENT_WORKSPACE_ID)).toMatchObject({ id: "ai", limits_enabled: false });

    await sim.control("/quota", { workspaceId: child, metered: true });
    expect((await createProject(sim, child)).status).toBe(405);
    // The flip is the root's, and its answer says so too.
    expect(await aiProduct(UNMETERED_PARENT_WORKSPACE_ID)).toMatchObject({ id: "ai", limits_enabled: true });
  });
});

describe("enforcement lag after a top-up", () => {
  it("keeps judging writes against the old total until enforcementLagMs has passed", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const lagged = await startTestSimulator({
      seed: "gold",
      now: () => now,
      settings: { enforcementLagMs: 9000 },
    });
    try {
      const child = await createChild(lagged, "Lagged");
      await settle(lagged, child);
      expect((await transfer(lagged, child, { projects: 1 })).status).toBe(200);
      expect((await createProject(lagged, child)).status).toBe(405);
      now += 8999;
      expect((await createProject(lagged, child)).status).toBe(405);
      now += 1;
      expect((await createProject(lagged, child)).status).toBe(201);
    } finally {
      await lagged.close();
    }
  });
});
