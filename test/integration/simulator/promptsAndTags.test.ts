import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import {
  call,
  createProject,
  createPrompts,
  GOLD_PARENT_WORKSPACE_ID as GOLD,
  patchPrimaryUrl,
  projectPath,
  publish,
  startTestSimulator,
  type TestSimulator,
} from "../../support/simulatorWorld.ts";

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

const tagsPath = () => `${projectPath(GOLD, project, "v2")}/aio/tags`;

async function createTags(names: string[], parentId?: string) {
  return call(sim, "POST", tagsPath(), { body: parentId ? { names, parent_id: parentId } : { names } });
}

async function listTags(query: string) {
  return call(sim, "GET", `${tagsPath()}?${query}`);
}

async function listPrompts(query = "", tagIds: string[] = []) {
  const response = await call(
    sim,
    "POST",
    `${projectPath(GOLD, project, "v2")}/aio/prompts/by_tags?${query}`,
    {
      body: { tag_ids: tagIds, page: 1, limit: 200 },
    },
  );
  expect(response.status).toBe(200);
  return response.json() as {
    items: {
      id: string;
      name: string;
      is_new: boolean;
      tags: { id: string; name: string }[];
      metadata?: unknown;
    }[];
    total: number;
  };
}

describe("prompts", () => {
  it("de-duplicates by exact text within a project", async () => {
    const first = (await createPrompts(sim, GOLD, project, ["Best shoes?", "best shoes?"])).json();
    expect(first.items.map((item: { is_new: boolean }) => item.is_new)).toEqual([true, true]);
    const second = (await createPrompts(sim, GOLD, project, ["Best shoes?", "Best shoes? "])).json();
    expect(second.items[0]).toMatchObject({ id: first.items[0].id, is_new: false });
    expect(second.items[1].is_new).toBe(true);
    expect(second.existing_count).toBe(1);
    expect((await listPrompts("draft=true")).total).toBe(3);
  });

  it("returns the metadata written, and lists it only with include_metadata=true", async () => {
    const metadata = {
      created_at: "2026-01-01T00:00:00Z",
      created_by: "u1",
      updated_at: "2026-01-01T00:00:00Z",
      updated_by: "u1",
    };
    const created = await call(sim, "POST", `${projectPath(GOLD, project, "v3")}/aio/prompts`, {
      body: { items: [{ name: "with metadata", metadata }], tag_ids: [] },
    });
    expect(created.status).toBe(201);
    expect(created.json().items[0]).toMatchObject({ name: "with metadata", is_new: true, metadata });
    expect((await listPrompts("draft=true")).items[0]!.metadata).toBeUndefined();
    expect((await listPrompts("draft=true&include_metadata=true")).items[0]!.metadata).toEqual(metadata);
  });

  it("writes land in the draft layer: the default list shows published prompts only", async () => {
    await createPrompts(sim, GOLD, project, ["draft one", "draft two"]);
    expect((await listPrompts()).total).toBe(0);
    const drafts = await listPrompts("draft=true");
    expect(drafts.items.map((item) => [item.name, item.is_new])).toEqual([
      ["draft one", true],
      ["draft two", true],
    ]);
    await patchPrimaryUrl(sim, GOLD, project);
    await publish(sim, GOLD, project);
    const live = await listPrompts();
    expect(live.total).toBe(2);
    expect(live.items.every((item) => !item.is_new)).toBe(true);
  });

  it("limit above 200 is a 400", async () => {
    const response = await call(sim, "POST", `${projectPath(GOLD, project, "v2")}/aio/prompts/by_tags`, {
      body: { tag_ids: [], page: 1, limit: 201 },
    });
    expect(response.status).toBe(400);
    expect(response.contentType).toMatch(/^text\/plain/);
  });

  it("an unknown tag id on create is a 500 and nothing is created", async () => {
    const response = await createPrompts(sim, GOLD, project, ["x", "y"], ["no-such-tag"]);
    expect(response.status).toBe(500);
    expect((await listPrompts("draft=true")).total).toBe(0);
    expect((await sim.dump()).workspaces[0]!.resources.prompts.drafted).toBe(0);
  });

  it("tags on create apply to the new prompts; filtering by tags returns prompts carrying any of them", async () => {
    const [origin] = (await createTags(["origin"])).json();
    const [ai, human] = (await createTags(["ai", "human"], origin.id)).json();
    await createPrompts(sim, GOLD, project, ["by ai"], [ai.id]);
    await createPrompts(sim, GOLD, project, ["by human"], [human.id]);
    await createPrompts(sim, GOLD, project, ["untagged"]);
    expect((await listPrompts("draft=true", [ai.id])).items.map((item) => item.name)).toEqual(["by ai"]);
    expect((await listPrompts("draft=true", [ai.id, human.id])).items.map((item) => item.name)).toEqual([
      "by ai",
      "by human",
    ]);
    expect((await listPrompts("draft=true", [ai.id])).items[0]!.tags).toEqual([{ id: ai.id, name: "ai" }]);
  });

  it("PUT prompts/tags adds or replaces references and skips unknown prompt ids silently", async () => {
    const [a, b] = (await createTags(["a", "b"])).json();
    const created = (await createPrompts(sim, GOLD, project, ["p"], [a.id])).json();
    const id = created.items[0].id;
    const put = (items: unknown[]) =>
      call(sim, "PUT", `${projectPath(GOLD, project, "v2")}/aio/prompts/tags`, { body: { items } });

    expect(
      (
        await put([
          { id, references: [b.id], replace: false },
          { id: "ghost", references: [b.id], replace: true },
        ])
      ).status,
    ).toBe(204);
    expect((await listPrompts("draft=true")).items[0]!.tags.map((tag) => tag.name)).toEqual(["a", "b"]);
    expect((await put([{ id, references: [b.id], replace: true }])).status).toBe(204);
    expect((await listPrompts("draft=true")).items[0]!.tags.map((tag) => tag.name)).toEqual(["b"]);
  });
});

describe("tags", () => {
  it("create answers 201 with a bare array of tree nodes (keyword_count, as live); names are unique per (project, parent) — a duplicate is a 500", async () => {
    const created = await createTags(["category", "intent"]);
    expect(created.status).toBe(201);
    const body = created.json();
    expect(body).toEqual([
      { id: expect.any(String), name: "category", children_count: 0, keyword_count: 0 },
      { id: expect.any(String), name: "intent", children_count: 0, keyword_count: 0 },
    ]);
    const duplicate = await createTags(["type", "intent"]);
    expect(duplicate.status).toBe(500);
    // Nothing of the failed call was created.
    expect((await listTags("parent_id=&search=&draft=true")).json().items).toHaveLength(2);
    // The same name under another parent is fine.
    const child = await createTags(["intent"], body[0].id);
    expect(child.status).toBe(201);
    expect(child.json()[0]).toMatchObject({ name: "intent", parent_id: body[0].id });
  });

  it("a tag tree of any depth; listing is per level with counts", async () => {
    const [root] = (await createTags(["source"])).json();
    const [api] = (await createTags(["api"], root.id)).json();
    const [deep] = (await createTags(["v2"], api.id)).json();
    await createPrompts(sim, GOLD, project, ["one", "two"], [api.id]);
    const roots = (await listTags("parent_id=&search=&draft=true")).json().items;
    expect(roots).toEqual([{ id: root.id, name: "source", children_count: 1, prompts_count: 0 }]);
    const level = (await listTags(`parent_id=${root.id}&search=&draft=true`)).json().items;
    expect(level).toEqual([
      { id: api.id, name: "api", parent_id: root.id, children_count: 1, prompts_count: 2 },
    ]);
    expect((await listTags(`parent_id=${api.id}&search=&draft=true`)).json().items[0].id).toBe(deep.id);
  });

  it("search filters names case-insensitively within the level", async () => {
    await createTags(["Informational", "Transactional", "Navigational"]);
    const found = (await listTags("parent_id=&search=ional&draft=true")).json().items;
    expect(found.map((tag: { name: string }) => tag.name)).toEqual([
      "Informational",
      "Transactional",
      "Navigational",
    ]);
    expect((await listTags("parent_id=&search=TRANS&draft=true")).json().items).toHaveLength(1);
  });

  it("parent_id and search are required (400 when missing)", async () => {
    expect((await listTags("search=")).status).toBe(400);
    expect((await listTags("parent_id=")).status).toBe(400);
  });

  it("tags are draft-layer: the default list shows only published tags", async () => {
    await createTags(["origin"]);
    expect((await listTags("parent_id=&search=")).json().items).toHaveLength(0);
    await patchPrimaryUrl(sim, GOLD, project);
    await publish(sim, GOLD, project);
    expect((await listTags("parent_id=&search=")).json().items).toHaveLength(1);
  });

  it("an unknown parent is a 404", async () => {
    expect((await createTags(["x"], "no-such-parent")).status).toBe(404);
  });
});
