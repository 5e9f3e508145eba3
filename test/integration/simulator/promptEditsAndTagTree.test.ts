import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import {
  call,
  createProject,
  createPrompts,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  patchPrimaryUrl,
  projectPath,
  publish,
  resources,
  startTestSimulator,
  type TestSimulator,
} from "../../support/simulatorWorld.ts";

/**
 * The simulator's side of issue 36's upstream operations, as the published document describes them:
 * the v3 in-place edit (a merge patch, 204, the id kept), the v2 rename (draft layer, `is_updated`),
 * the tag tree's update and delete, the by-tags list's search and sort, the init status.
 */

let sim: TestSimulator;
let project: string;

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold" });
});
afterAll(() => sim.close());
beforeEach(async () => {
  await sim.control("/reset", {});
  project = (await createProject(sim, GOLD)).json().id;
});

const v2 = () => projectPath(GOLD, project, "v2");
const v3 = () => projectPath(GOLD, project, "v3");

async function texts(draft: boolean): Promise<string[]> {
  const answer = await call(sim, "POST", `${v2()}/aio/prompts/by_tags?draft=${draft}`, {
    body: { tag_ids: [], page: 1, limit: 200 },
  });
  return (answer.json().items as { name: string }[]).map((item) => item.name);
}

async function created(names: string[]): Promise<string[]> {
  return ((await createPrompts(sim, GOLD, project, names)).json().items as { id: string }[]).map((p) => p.id);
}

async function live(): Promise<void> {
  await patchPrimaryUrl(sim, GOLD, project);
  expect((await publish(sim, GOLD, project)).status).toBe(202);
}

describe("the in-place edit (v3 PATCH …/aio/prompts/{id})", () => {
  it("sets the text and merges the metadata in place, answering 204 with the id kept", async () => {
    const [id] = await created(["Best shoes?"]);
    const edit = await call(sim, "PATCH", `${v3()}/aio/prompts/${id}`, {
      body: { name: "Best running shoes?", metadata: { updated_by: "u2", created_by: null } },
    });
    expect(edit.status).toBe(204);
    expect(edit.text).toBe("");
    const listed = await call(sim, "POST", `${v2()}/aio/prompts/by_tags?draft=true&include_metadata=true`, {
      body: { tag_ids: [], page: 1, limit: 10 },
    });
    const [item] = listed.json().items;
    expect(item).toMatchObject({ id, name: "Best running shoes?" });
    expect(item.metadata.updated_by).toBe("u2");
    expect(item.metadata).not.toHaveProperty("created_by");
  });

  it("a text another prompt holds is a 409 and nothing changes; an empty patch or a null name is a 400", async () => {
    const [a] = await created(["one", "two"]);
    const clash = await call(sim, "PATCH", `${v3()}/aio/prompts/${a}`, { body: { name: "two" } });
    expect(clash.status).toBe(409);
    expect(await texts(true)).toEqual(["one", "two"]);
    expect((await call(sim, "PATCH", `${v3()}/aio/prompts/${a}`, { body: {} })).status).toBe(400);
    expect((await call(sim, "PATCH", `${v3()}/aio/prompts/${a}`, { body: { name: null } })).status).toBe(400);
    expect((await call(sim, "PATCH", `${v3()}/aio/prompts/missing`, { body: { name: "x" } })).status).toBe(
      404,
    );
  });

  it("changes no unit count; the published view keeps the live text until a publish", async () => {
    const [id] = await created(["Best shoes?"]);
    await live();
    const before = await resources(sim, GOLD);
    await call(sim, "PATCH", `${v3()}/aio/prompts/${id}`, { body: { name: "Best boots?" } });
    expect(await resources(sim, GOLD)).toEqual(before);
    expect(await texts(false)).toEqual(["Best shoes?"]);
    expect(await texts(true)).toEqual(["Best boots?"]);
    const status = await call(sim, "GET", `${projectPath(GOLD, project)}?draft=true&type=ai`);
    expect(status.json().publish_status).toBe("live_with_unpublished_updates");
    await publish(sim, GOLD, project);
    expect(await texts(false)).toEqual(["Best boots?"]);
    expect(await resources(sim, GOLD)).toEqual(before);
  });

  it("the old text is free again: a create of it makes a new prompt", async () => {
    const [id] = await created(["Best shoes?"]);
    await call(sim, "PATCH", `${v3()}/aio/prompts/${id}`, { body: { name: "Best boots?" } });
    const again = (await createPrompts(sim, GOLD, project, ["Best shoes?", "Best boots?"])).json();
    expect(again.items[0].is_new).toBe(true);
    expect(again.items[1]).toMatchObject({ id, is_new: false });
  });
});

describe("the rename (v2 POST …/aio/prompts/{id}/rename)", () => {
  it("is_updated only for a published prompt whose text now differs from the live one", async () => {
    const [id] = await created(["Best shoes?"]);
    const rename = (name: string) =>
      call(sim, "POST", `${v2()}/aio/prompts/${id}/rename`, { body: { new_name: name } });
    const draft = await rename("Best boots?");
    expect(draft.status).toBe(200);
    expect(draft.json()).toEqual({ id, name: "Best boots?", is_updated: false });
    await live();
    expect((await rename("Best sandals?")).json().is_updated).toBe(true);
    expect((await rename("Best sandals?")).json().is_updated).toBe(false);
    // Back to the live text: a restore.
    expect((await rename("Best boots?")).json()).toEqual({ id, name: "Best boots?", is_updated: false });
  });

  it("a duplicate text is a 409", async () => {
    const [a] = await created(["one", "two"]);
    const clash = await call(sim, "POST", `${v2()}/aio/prompts/${a}/rename`, { body: { new_name: "two" } });
    expect(clash.status).toBe(409);
  });
});

describe("the tag tree: update and delete", () => {
  const tags = () => `${v2()}/aio/tags`;
  const make = async (names: string[], parentId?: string) =>
    (
      await call(sim, "POST", tags(), { body: parentId ? { names, parent_id: parentId } : { names } })
    ).json() as { id: string; name: string }[];
  const level = async (parentId = "") =>
    (
      (await call(sim, "GET", `${tags()}?parent_id=${parentId}&search=&draft=true`)).json().items as {
        id: string;
        name: string;
      }[]
    ).map((tag) => tag.name);

  it("renames and re-parents, the id kept; a root is a tag without parent_id", async () => {
    const [category, other] = await make(["category", "other"]);
    const [shoes] = await make(["shoes"], category!.id);
    const moved = await call(sim, "PATCH", `${tags()}/${shoes!.id}`, {
      body: { name: "footwear", parent_id: other!.id },
    });
    expect(moved.status).toBe(200);
    expect(moved.json()).toMatchObject({ id: shoes!.id, name: "footwear", parent_id: other!.id });
    expect(await level(other!.id)).toEqual(["footwear"]);
    expect(await level(category!.id)).toEqual([]);
    const root = await call(sim, "PATCH", `${tags()}/${shoes!.id}`, {
      body: { name: "footwear", parent_id: null },
    });
    expect(root.json()).not.toHaveProperty("parent_id");
    expect(await level()).toEqual(["category", "other", "footwear"]);
  });

  it("refuses a sibling's name, a move into its own subtree, an unknown parent, a missing name", async () => {
    const [a, b] = await make(["a", "b"]);
    const [child] = await make(["child"], a!.id);
    expect((await call(sim, "PATCH", `${tags()}/${a!.id}`, { body: { name: "b" } })).status).toBe(500);
    expect(
      (await call(sim, "PATCH", `${tags()}/${a!.id}`, { body: { name: "a", parent_id: child!.id } })).status,
    ).toBe(500);
    expect(
      (await call(sim, "PATCH", `${tags()}/${a!.id}`, { body: { name: "a", parent_id: "nope" } })).status,
    ).toBe(404);
    expect((await call(sim, "PATCH", `${tags()}/${b!.id}`, { body: {} })).status).toBe(400);
    expect(await level()).toEqual(["a", "b"]);
  });

  it("deletes tags and takes them off every prompt; a tag with children needs cascade", async () => {
    const [root] = await make(["category"]);
    const [shoes] = await make(["shoes"], root!.id);
    await createPrompts(sim, GOLD, project, ["Best shoes?"], [shoes!.id]);
    const remove = (body: unknown) => call(sim, "DELETE", `${tags()}?prompt_id=`, { body });
    expect((await remove({ ids: [root!.id] })).status).toBe(500);
    expect(await level()).toEqual(["category"]);
    expect((await remove({ ids: [root!.id], cascade: true })).status).toBe(204);
    expect(await level()).toEqual([]);
    const listed = await call(sim, "POST", `${v2()}/aio/prompts/by_tags?draft=true`, {
      body: { tag_ids: [], page: 1, limit: 10 },
    });
    expect(listed.json().items[0].tags).toEqual([]);
  });
});

describe("the by-tags list's search and sort, and the init status", () => {
  it("search is a case-insensitive contains; sort by name or a metadata time, either direction", async () => {
    const items = [
      { name: "Banana bread?", metadata: { created_at: "2026-01-02T00:00:00Z" } },
      { name: "apple pie?", metadata: { created_at: "2026-01-03T00:00:00Z" } },
      { name: "Cherry PIE?", metadata: { created_at: "2026-01-01T00:00:00Z" } },
    ];
    await call(sim, "POST", `${v3()}/aio/prompts`, { body: { items, tag_ids: [] } });
    const list = async (body: Record<string, unknown>) =>
      (
        (
          await call(sim, "POST", `${v2()}/aio/prompts/by_tags?draft=true`, {
            body: { tag_ids: [], page: 1, limit: 10, ...body },
          })
        ).json().items as { name: string }[]
      ).map((item) => item.name);
    expect(await list({ search: "pie" })).toEqual(["apple pie?", "Cherry PIE?"]);
    expect(await list({ sort_field: "name", sort_dir: "desc" })).toEqual([
      "apple pie?",
      "Cherry PIE?",
      "Banana bread?",
    ]);
    expect(await list({ sort_field: "created_at" })).toEqual(["Cherry PIE?", "Banana bread?", "apple pie?"]);
    const bad = await call(sim, "POST", `${v2()}/aio/prompts/by_tags`, {
      body: { tag_ids: [], page: 1, limit: 10, sort_field: "volume" },
    });
    expect(bad.status).toBe(400);
  });

  it("init status: not initialised until a publish made the project live", async () => {
    const status = async () => (await call(sim, "GET", `${v2()}/aio/init_status`)).json();
    expect(await status()).toEqual({ initialized: false });
    await live();
    expect(await status()).toEqual({ initialized: true });
  });
});
