import { describe, expect, it } from "vitest";

import { catalogueLanguageId, catalogueModelId, PE } from "../../support/simulator.ts";
import {
  call,
  createProject,
  createPrompts,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  patchPrimaryUrl,
  projectPath,
  publish,
  type TestSimulator,
  useSimulatorWorld,
} from "../../support/simulatorWorld.ts";

let sim: TestSimulator;
useSimulatorWorld((started) => (sim = started));

async function newProject(overrides: Record<string, unknown> = {}): Promise<string> {
  const response = await createProject(sim, GOLD, overrides);
  expect(response.status).toBe(201);
  return response.json().id;
}

const readProject = async (id: string) => call(sim, "GET", `${projectPath(GOLD, id)}?draft=true&type=ai`);

describe("market projects", () => {
  it("create answers 201 with a draft in the live read view: brand, country, location and language under settings.ai, the language as its ISO code; primary_url is ignored on create", async () => {
    const french = catalogueLanguageId("fr");
    const response = await createProject(sim, GOLD, {
      primary_url: "https://ignored.example",
      language_id: french,
    });
    expect(response.status).toBe(201);
    expect(response.json()).toEqual({
      id: expect.any(String),
      name: "Acme US",
      type: "ai",
      domain: "acme.com",
      publish_status: "draft",
      updated_at: expect.any(String),
      settings: {
        ai: {
          brand_name_display: "Acme",
          brand_names: ["Acme"],
          country: { code: "us", name: "United States" },
          location: { id: 2840, name: "United States" },
          language: { id: french, name: "fr" },
          // The own brand's benchmark comes with the project.
          benchmarks_count: 1,
        },
        ci: { competitors: [] },
      },
    });
  });

  it("rejects a bad language or location with 400 text/plain", async () => {
    const language = await createProject(sim, GOLD, { language_id: "00000000-0000-4000-8000-000000000999" });
    expect(language.status).toBe(400);
    expect(language.contentType).toMatch(/^text\/plain/);
    expect(JSON.parse(language.text)).toEqual({ message: "invalid language" });
    // A catalogue id is a string: the small integers of old are no language.
    expect((await createProject(sim, GOLD, { language_id: 1 })).status).toBe(400);
    const location = await createProject(sim, GOLD, { country_code: "fr", location_id: 2840 });
    expect(location.status).toBe(400);
    expect(JSON.parse(location.text)).toEqual({ message: "invalid location" });
    expect((await createProject(sim, GOLD, { country_code: "US" })).status).toBe(400);
  });

  it("PATCH requires type and sets primary_url", async () => {
    const id = await newProject();
    const untyped = await call(sim, "PATCH", projectPath(GOLD, id), {
      body: { primary_url: "https://acme.com" },
    });
    expect(untyped.status).toBe(400);
    expect(untyped.contentType).toMatch(/^text\/plain/);
    const patched = await patchPrimaryUrl(sim, GOLD, id);
    expect(patched.status).toBe(200);
    expect(patched.json().settings.ai.primary_url).toBe("https://acme.com");
  });

  it("publish answers 202 with an empty body and the project reads live", async () => {
    const id = await newProject();
    await patchPrimaryUrl(sim, GOLD, id);
    const response = await publish(sim, GOLD, id);
    expect(response.status).toBe(202);
    expect(response.text).toBe("");
    expect((await readProject(id)).json().publish_status).toBe("live");
  });

  it("publish reads publishing for publishReads project reads before live", async () => {
    await sim.control("/settings", { publishReads: 2 });
    const id = await newProject();
    await patchPrimaryUrl(sim, GOLD, id);
    await publish(sim, GOLD, id);
    expect((await readProject(id)).json().publish_status).toBe("publishing");
    expect((await readProject(id)).json().publish_status).toBe("publishing");
    expect((await readProject(id)).json().publish_status).toBe("live");
  });

  it("a first publish without a primary URL is accepted and fails in the background", async () => {
    const id = await newProject();
    await createPrompts(sim, GOLD, id, ["a"]);
    expect((await publish(sim, GOLD, id)).status).toBe(202);
    expect((await readProject(id)).json().publish_status).toBe("initial_publish_failed");
    // Nothing was published: the units stay drafted.
    const dump = await sim.dump();
    expect(dump.workspaces[0]!.resources.projects).toEqual({ used: 0, drafted: 1, total: 13 });
    await patchPrimaryUrl(sim, GOLD, id);
    await publish(sim, GOLD, id);
    expect((await readProject(id)).json().publish_status).toBe("live");
  });

  it("a live project with new drafts reads live_with_unpublished_updates until published again", async () => {
    const id = await newProject();
    await patchPrimaryUrl(sim, GOLD, id);
    await publish(sim, GOLD, id);
    await createPrompts(sim, GOLD, id, ["new text"]);
    expect((await readProject(id)).json().publish_status).toBe("live_with_unpublished_updates");
    await publish(sim, GOLD, id);
    expect((await readProject(id)).json().publish_status).toBe("live");
  });

  it("delete answers 204, then 404 {message: not found} as text/plain", async () => {
    const id = await newProject();
    expect((await call(sim, "DELETE", projectPath(GOLD, id))).status).toBe(204);
    const again = await call(sim, "DELETE", projectPath(GOLD, id));
    expect(again.status).toBe(404);
    expect(again.contentType).toMatch(/^text\/plain/);
    expect(again.text).toBe('{"message":"not found"}');
    const read = await readProject(id);
    expect(read.status).toBe(404);
    expect(read.contentType).toMatch(/^text\/plain/);
  });

  it("a project is only reachable under its own workspace; an unknown workspace is 403 JSON", async () => {
    const id = await newProject();
    const other = await call(sim, "GET", projectPath("another-workspace", id));
    expect(other.status).toBe(403);
    expect(other.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(other.text)).toEqual({ message: "invalid access attempt" });
  });

  it("lists require type=ai and are consistent by default", async () => {
    const id = await newProject();
    const untyped = await call(sim, "GET", `${PE}/v1/workspaces/${GOLD}/projects`);
    expect(untyped.status).toBe(400);
    const listed = await call(sim, "GET", `${PE}/v1/workspaces/${GOLD}/projects?type=ai`);
    expect(listed.status).toBe(200);
    expect(listed.json()).toMatchObject({ page: 1, total: 1, items: [{ id, publish_status: "draft" }] });
  });

  it("lists can lag behind creates by listLagReads reads", async () => {
    await sim.control("/settings", { listLagReads: 1 });
    const id = await newProject();
    const list = async () => (await call(sim, "GET", `${PE}/v1/workspaces/${GOLD}/projects?type=ai`)).json();
    expect((await list()).total).toBe(0);
    expect((await list()).items.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it("models: a new project has the default model; list, add, duplicate add and delete", async () => {
    const id = await newProject();
    await createPrompts(sim, GOLD, id, ["a", "b"]);
    const list = async () => (await call(sim, "GET", `${projectPath(GOLD, id)}/ai_models`)).json().items;
    const initial = await list();
    expect(initial).toEqual([
      { id: expect.any(String), model: expect.objectContaining({ key: "search-gpt" }), prompts_count: 2 },
    ]);
    const add = (modelId: unknown) =>
      call(sim, "POST", `${projectPath(GOLD, id, "v2")}/ai_models`, { body: { model_id: modelId } });
    expect((await add(catalogueModelId("perplexity"))).status).toBe(201);
    const duplicate = await add(catalogueModelId("perplexity"));
    expect(duplicate.status).toBe(409);
    expect(duplicate.contentType).toMatch(/^text\/plain/);
    expect((await add("00000000-0000-4000-8000-000000000999")).status).toBe(400);
    expect((await add(6)).status).toBe(400);
    expect((await list()).map((item: { model: { key: string } }) => item.model.key)).toEqual([
      "search-gpt",
      "perplexity",
    ]);
    const removed = await call(sim, "DELETE", `${projectPath(GOLD, id)}/ai_models`, {
      body: { ids: [initial[0].id] },
    });
    expect(removed.status).toBe(204);
    expect((await list()).map((item: { model: { key: string } }) => item.model.key)).toEqual(["perplexity"]);
  });

  it("the models sub-resource is GET/DELETE on v1 and POST on v2: other methods are a JSON 405", async () => {
    const id = await newProject();
    const wrong = await call(sim, "GET", `${projectPath(GOLD, id, "v2")}/ai_models`);
    expect(wrong.status).toBe(405);
    expect(wrong.contentType).toMatch(/^application\/json/);
    expect(wrong.json()).toEqual({ message: "Method Not Allowed" });
  });
});
