import { describe, expect, it } from "vitest";

import { reply, SCRIPTED_AT, useScriptedClient } from "../../support/scriptedUpstream.ts";
import { PE } from "../../support/simulator.ts";

/**
 * Every call of spec/gateway.md §2: the method, path, query and body the adapter sends, and the
 * camelCase shape it maps the answer to. The contract suite checks the same calls against the simulator.
 */

const AT = SCRIPTED_AT;
const T = "token-1";
const WS = "/v1/workspaces/ws1/projects/p1";

const scripted = useScriptedClient();
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are read loosely in assertions
const sent = () => scripted.sent() as { method?: string; url?: string; body: any };

// Live catalogue ids are UUID strings (test/fixtures/semrush/live-catalogues.json).
const SEARCH_GPT = "eab23d14-df70-463f-8779-3f6a4ba770bc";
const FRENCH = "471aba35-ee1f-4207-b6f6-8c6550bbbab8";
const model = { id: SEARCH_GPT, key: "search-gpt", name: "ChatGPT", icon: "openai" };
const mapped = { id: SEARCH_GPT, key: "search-gpt", name: "ChatGPT", icon: "openai" };
// The live read view: brand, URL, country, location and language under settings.ai.
const project = {
  id: "p1",
  name: "Acme FR",
  type: "ai",
  publish_status: "draft",
  domain: "acme.example",
  settings: {
    ai: {
      brand_name_display: "Acme",
      brand_names: ["Acme"],
      country: { code: "fr", name: "France" },
      location: { id: 2250, name: "France" },
      language: { id: FRENCH, name: "fr" },
    },
  },
};

describe("Project Engine adapter: catalogues and projects", () => {
  it("listLanguages and listAiModels", async () => {
    scripted.upstream.script(reply(200, { page: 1, total: 1, items: [{ id: FRENCH, name: "French" }] }));
    expect(await scripted.client.projects.listLanguages(T)).toEqual({
      page: 1,
      total: 1,
      items: [{ id: FRENCH, name: "French" }],
    });
    expect(sent()).toMatchObject({ method: "GET", url: `${PE}/v1/languages` });

    scripted.upstream.script(reply(200, { page: 2, total: 11, items: [model] }));
    expect(await scripted.client.projects.listAiModels(T, { page: 2, limit: 10 })).toEqual({
      page: 2,
      total: 11,
      items: [mapped],
    });
    expect(sent()).toMatchObject({ method: "GET", url: `${PE}/v1/ai_models?page=2&limit=10` });
  });

  it("a catalogue id that is not a string is not one (the client tolerates no older integer shape)", async () => {
    scripted.upstream.script(reply(200, { page: 1, total: 1, items: [{ id: 12, name: "French" }] }));
    await expect(scripted.client.projects.listLanguages(T)).rejects.toMatchObject({
      kind: "unexpectedResponse",
    });
  });

  it("listProjects and getProject read the project from its live view (settings.ai)", async () => {
    scripted.upstream.script(reply(200, { page: 1, total: 1, items: [project] }));
    const list = await scripted.client.projects.listProjects(T, "ws1");
    expect(sent()).toMatchObject({ method: "GET", url: `${PE}/v1/workspaces/ws1/projects?type=ai` });
    const expected = {
      id: "p1",
      name: "Acme FR",
      publishStatus: "draft",
      domain: "acme.example",
      countryCode: "fr",
      locationId: 2250,
      locationName: "France",
      languageId: FRENCH,
      languageCode: "fr",
      primaryUrl: undefined,
      brandNameDisplay: "Acme",
      brandNames: ["Acme"],
    };
    expect(list.items).toEqual([expected]);

    scripted.upstream.script(reply(200, project));
    expect(await scripted.client.projects.getProject(T, "ws1", "p1")).toEqual(expected);

    // Top-level copies of those fields (which live never sends) are not read.
    const flat = { ...project, country_code: "de", language_id: "x", brand_names: ["Other"], settings: {} };
    scripted.upstream.script(reply(200, flat));
    expect(await scripted.client.projects.getProject(T, "ws1", "p1")).toMatchObject({
      countryCode: undefined,
      languageId: undefined,
      brandNames: undefined,
    });
    expect(sent()).toMatchObject({ method: "GET", url: `${PE}${WS}?draft=true&type=ai` });
  });

  it("createProject sends the wire body with type ai, a lower-case country and the language id as a string", async () => {
    scripted.upstream.script(reply(201, project));
    await scripted.client.projects.createProject(T, "ws1", {
      name: "Acme FR",
      brandNameDisplay: "Acme",
      brandNames: ["Acme", "ACME"],
      domain: "acme.example",
      countryCode: "FR",
      locationId: 2250,
      locationName: "France",
      languageId: FRENCH,
    });
    expect(sent()).toEqual({
      method: "POST",
      url: `${PE}/v1/workspaces/ws1/projects`,
      body: {
        name: "Acme FR",
        type: "ai",
        brand_name_display: "Acme",
        brand_names: ["Acme", "ACME"],
        domain: "acme.example",
        country_code: "fr",
        location_id: 2250,
        location_name: "France",
        language_id: FRENCH,
      },
    });
  });

  it("patchProject always sends type ai and only the given fields", async () => {
    scripted.upstream.script(reply(200, project));
    await scripted.client.projects.patchProject(T, "ws1", "p1", { primaryUrl: "https://acme.example" });
    expect(sent()).toEqual({
      method: "PATCH",
      url: `${PE}${WS}`,
      body: { type: "ai", primary_url: "https://acme.example" },
    });
  });

  it("deleteProject and publishProject ignore the empty answers", async () => {
    scripted.upstream.script(reply(204));
    await scripted.client.projects.deleteProject(T, "ws1", "p1");
    expect(sent()).toMatchObject({ method: "DELETE", url: `${PE}${WS}` });
    scripted.upstream.script(reply(202));
    await scripted.client.projects.publishProject(T, "ws1", "p1");
    expect(sent()).toEqual({ method: "POST", url: `${PE}${WS}/publish`, body: undefined });
  });

  it("getBrandTopics", async () => {
    scripted.upstream.script(
      reply(200, [
        { topic: "running shoes", volume: 1200, prompts: ["best running shoes?"] },
        { topic: "x" },
      ]),
    );
    expect(
      await scripted.client.projects.getBrandTopics(T, "ws1", { domain: "acme.example", country: "fr" }),
    ).toEqual([
      { topic: "running shoes", volume: 1200, prompts: ["best running shoes?"] },
      { topic: "x", volume: 0, prompts: [] },
    ]);
    expect(sent()).toMatchObject({
      method: "GET",
      url: `${PE}/v1/workspaces/ws1/brand-topics?domain=acme.example&country=fr`,
    });
  });
});

describe("Project Engine adapter: models, prompts, tags", () => {
  it("project AI models: list, add (v2), delete", async () => {
    scripted.upstream.script(reply(200, { items: [{ id: "a91", model, prompts_count: 40 }] }));
    expect(await scripted.client.projects.listProjectAiModels(T, "ws1", "p1")).toEqual([
      { assignmentId: "a91", model: mapped, promptsCount: 40 },
    ]);
    expect(sent()).toMatchObject({ method: "GET", url: `${PE}${WS}/ai_models` });

    scripted.upstream.script(reply(201, { id: "a92", model, prompts_count: 0 }));
    expect(await scripted.client.projects.addProjectAiModel(T, "ws1", "p1", SEARCH_GPT)).toEqual({
      assignmentId: "a92",
      model: mapped,
    });
    // The catalogue id goes on the wire as the string it is (the published type).
    expect(sent()).toEqual({
      method: "POST",
      url: `${PE}/v2/workspaces/ws1/projects/p1/ai_models`,
      body: { model_id: SEARCH_GPT },
    });

    scripted.upstream.script(reply(204));
    await scripted.client.projects.deleteProjectAiModels(T, "ws1", "p1", ["a91", "a92"]);
    expect(sent()).toEqual({ method: "DELETE", url: `${PE}${WS}/ai_models`, body: { ids: ["a91", "a92"] } });
  });

  it("listPrompts (by_tags) with and without drafts, limit capped at 200", async () => {
    const item = {
      id: "5",
      name: "best shoes?",
      is_new: true,
      tags: [{ id: "8", name: "ai", parent_id: "2" }],
      metadata: { created_at: "t", created_by: "u", updated_at: "t", updated_by: "u" },
    };
    scripted.upstream.script(reply(200, { page: 1, total: 1, items: [item] }));
    const page = await scripted.client.projects.listPrompts(T, "ws1", "p1", {
      draft: true,
      limit: 500,
      tagIds: ["8"],
    });
    expect(sent()).toEqual({
      method: "POST",
      url: `${PE}/v2/workspaces/ws1/projects/p1/aio/prompts/by_tags?include_metadata=true&draft=true`,
      body: { tag_ids: ["8"], page: 1, limit: 200 },
    });
    expect(page.items).toEqual([
      {
        id: "5",
        text: "best shoes?",
        isNew: true,
        tags: [{ id: "8", name: "ai", parentId: "2" }],
        metadata: { createdAt: "t", createdBy: "u", updatedAt: "t", updatedBy: "u" },
      },
    ]);
    await scripted.client.projects.listPrompts(T, "ws1", "p1");
    expect(sent()).toMatchObject({
      url: `${PE}/v2/workspaces/ws1/projects/p1/aio/prompts/by_tags?include_metadata=true`,
      body: { tag_ids: [], page: 1, limit: 200 },
    });
  });

  it("createPrompts (v3) stamps metadata from the clock", async () => {
    scripted.upstream.script(
      reply(201, {
        items: [
          { id: "1", name: "a", is_new: true },
          { id: "2", name: "b", is_new: false },
        ],
        existing_count: 1,
      }),
    );
    const result = await scripted.client.projects.createPrompts(T, "ws1", "p1", {
      texts: ["a", "b"],
      createdBy: "user-9",
      tagIds: ["t1"],
    });
    const meta = {
      created_at: AT.toISOString(),
      created_by: "user-9",
      updated_at: AT.toISOString(),
      updated_by: "user-9",
    };
    expect(sent()).toEqual({
      method: "POST",
      url: `${PE}/v3/workspaces/ws1/projects/p1/aio/prompts`,
      body: {
        items: [
          { name: "a", metadata: meta },
          { name: "b", metadata: meta },
        ],
        tag_ids: ["t1"],
      },
    });
    expect(result.existingCount).toBe(1);
    expect(result.items.map((p) => [p.id, p.isNew])).toEqual([
      ["1", true],
      ["2", false],
    ]);
  });

  it("deletePrompts (v2)", async () => {
    scripted.upstream.script(reply(204));
    await scripted.client.projects.deletePrompts(T, "ws1", "p1", ["1"]);
    expect(sent()).toEqual({
      method: "DELETE",
      url: `${PE}/v2/workspaces/ws1/projects/p1/aio/prompts`,
      body: { ids: ["1"] },
    });
  });

  it("tags: list (required empty params), create, put prompt tags", async () => {
    scripted.upstream.script(
      reply(200, {
        items: [{ id: "2", name: "origin", children_count: 2, prompts_count: 0 }],
      }),
    );
    expect(await scripted.client.projects.listTags(T, "ws1", "p1")).toEqual([
      { id: "2", name: "origin", parentId: null, childrenCount: 2, promptsCount: 0 },
    ]);
    expect(sent()).toMatchObject({
      method: "GET",
      url: `${PE}/v2/workspaces/ws1/projects/p1/aio/tags?parent_id=&search=&draft=true`,
    });
    await scripted.client.projects.listTags(T, "ws1", "p1", { parentId: "2", search: "a i" });
    expect(sent().url).toBe(`${PE}/v2/workspaces/ws1/projects/p1/aio/tags?parent_id=2&search=a+i&draft=true`);

    // Tag create answers TreeNodeResponse, whose prompt count is keyword_count.
    scripted.upstream.script(
      reply(201, [{ id: "8", name: "ai", parent_id: "2", children_count: 0, keyword_count: 3 }]),
    );
    expect(
      await scripted.client.projects.createTags(T, "ws1", "p1", { names: ["ai"], parentId: "2" }),
    ).toEqual([{ id: "8", name: "ai", parentId: "2", childrenCount: 0, promptsCount: 3 }]);
    expect(sent()).toEqual({
      method: "POST",
      url: `${PE}/v2/workspaces/ws1/projects/p1/aio/tags`,
      body: { names: ["ai"], parent_id: "2" },
    });
    await scripted.client.projects.createTags(T, "ws1", "p1", { names: ["origin"] });
    expect(sent().body).toEqual({ names: ["origin"] });

    scripted.upstream.script(reply(204));
    await scripted.client.projects.setPromptTags(T, "ws1", "p1", [
      { promptId: "1", tagIds: ["8"], replace: true },
    ]);
    expect(sent()).toEqual({
      method: "PUT",
      url: `${PE}/v2/workspaces/ws1/projects/p1/aio/prompts/tags`,
      body: { items: [{ id: "1", references: ["8"], replace: true }] },
    });
  });
});
