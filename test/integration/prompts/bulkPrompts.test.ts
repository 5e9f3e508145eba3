import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import type { SimProject } from "../../../src/simulator/store/types.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { UM } from "../../support/simulator.ts";
import { callRoute } from "../../support/testApp.ts";

let world: MarketWorld;
let us: SimProject;
let fr: SimProject;
const subWorkspaceIds: string[] = [];

beforeAll(async () => {
  world = await startMarketWorld();
  for (const [market, languageCode] of [
    ["US", "en"],
    ["FR", "fr"],
  ]) {
    const answer = await world.call("POST", world.marketsUrl(), {
      market,
      languageCode,
      modelIds: ["search-gpt"],
    });
    expect(answer.status).toBe(201);
  }
  us = world.projects().find((p) => p.locationId === 2840)!;
  fr = world.projects().find((p) => p.locationId === 2250)!;
});

afterAll(async () => {
  expectNoLeaks(world.responses, {
    bearers: [world.token],
    workspaceIds: [GOLD_PARENT_WORKSPACE_ID, ...subWorkspaceIds],
  });
  await world.close();
});

type Item = { text: string; geoTargetId: number; languageCode: string; category?: string };
type Result = { index: number; status: number; id?: string; error?: { code: string; message: string } };

const usItem = (text: string, category?: string): Item => ({
  text,
  geoTargetId: 2840,
  languageCode: "en",
  category,
});

/** Tag paths (`root=value`) of a prompt as the simulator holds them. */
function tagPaths(project: SimProject, promptId: string): string[] {
  const prompt = project.prompts.get(promptId)!;
  return prompt.tagIds
    .map((id) => {
      const tag = project.tags.get(id)!;
      const parent = tag.parentId ? project.tags.get(tag.parentId)!.name : "";
      return `${parent}=${tag.name}`;
    })
    .sort();
}

function publishesOf(calls: { method: string; path: string }[], project: SimProject): number {
  return calls.filter(
    (call) => call.method === "POST" && call.path.endsWith(`/projects/${project.id}/publish`),
  ).length;
}

/** A brand on its own sub-workspace, allocated one project and no prompt, with a US market (1 model). */
async function brandWithoutPromptUnits(title: string, name: string) {
  const subWorkspaceId = await world.createSubWorkspace(title, { projects: 1 });
  subWorkspaceIds.push(subWorkspaceId);
  const brandId = await world.createBrand({ name });
  await world.setBrand(brandId, { subWorkspaceId, provisioningStatus: "ready", status: "active" });
  const created = await world.call("POST", world.marketsUrl(brandId), {
    market: "US",
    languageCode: "en",
    modelIds: ["gpt-5"],
  });
  expect(created.status).toBe(201);
  return { brandId, subWorkspaceId };
}

describe("bulk create", () => {
  let existing: Result[];

  it("creates all items → 201 with an id per item, tagged origin/source/type", async () => {
    const items = Array.from({ length: 50 }, (_, i) =>
      usItem(i % 2 ? `what is acme widget ${i}` : `best widget ${i}`),
    );
    const answer = await world.call("POST", world.promptsUrl(), { items });
    expect(answer.status).toBe(201);
    existing = answer.body.items;
    expect(existing.map((item) => item.status)).toEqual(items.map(() => 201));
    expect(existing.map((item) => item.index)).toEqual(items.map((_, i) => i));
    expect(tagPaths(us, existing[1]!.id!)).toEqual(["origin=human", "source=api", "type=branded"]);
    expect(tagPaths(us, existing[0]!.id!)).toEqual(["origin=human", "source=api", "type=non-branded"]);
    expect([...us.prompts.values()].every((prompt) => prompt.live)).toBe(true);
  });

  it("500 mixed items: per-item statuses, one publish per project, tags read back from the simulator", async () => {
    const items: Item[] = [];
    // 0..49: texts already in the US project → 200 with their ids.
    for (let i = 0; i < 50; i++) items.push(usItem(i % 2 ? `what is acme widget ${i}` : `best widget ${i}`));
    // 50..349: new US texts, some branded (alias "Acme", any case), with categories.
    for (let i = 0; i < 300; i++) {
      const category = i % 3 === 0 ? "pricing" : i % 3 === 1 ? "support" : undefined;
      items.push(usItem(i % 4 === 0 ? `Is ACME good for task ${i}?` : `how to do task ${i}`, category));
    }
    // 350..449: new FR texts.
    for (let i = 0; i < 100; i++)
      items.push({ text: `meilleur outil ${i}`, geoTargetId: 2250, languageCode: "fr" });
    // 450..459: duplicates of 50..59 within the request → 200 with the first one's id.
    for (let i = 0; i < 10; i++) items.push({ ...items[50 + i]! });
    // 460..469: invalid texts → 400 each.
    const invalidTexts = [
      "",
      "   ",
      "x".repeat(1001),
      "bad\u0001text",
      "tab\there",
      "nul\u0000",
      "del\u007f",
      "\n",
      "a\rb",
      "",
    ];
    for (const text of invalidTexts) items.push(usItem(text));
    // 470..479: no such market → 404 each.
    for (let i = 0; i < 10; i++) items.push({ text: `german ${i}`, geoTargetId: 2276, languageCode: "de" });
    // 480..489: invalid categories → 400 each.
    for (let i = 0; i < 10; i++) items.push(usItem(`categorised ${i}`, i % 2 ? "" : "c".repeat(101)));
    // 490..499: new US texts with an upper-case language code and surrounding blanks.
    for (let i = 0; i < 10; i++)
      items.push({ text: `  upper ${i}  `, geoTargetId: 2840, languageCode: "EN" });
    expect(items).toHaveLength(500);

    await world.sim.clearCalls();
    const answer = await world.call("POST", world.promptsUrl(), { items });
    expect(answer.status).toBe(207);
    const results: Result[] = answer.body.items;
    expect(results.map((result) => result.index)).toEqual(items.map((_, i) => i));
    const statusAt = (from: number, to: number) => [...new Set(results.slice(from, to).map((r) => r.status))];
    expect(statusAt(0, 50)).toEqual([200]);
    expect(results.slice(0, 50).map((r) => r.id)).toEqual(existing.map((r) => r.id));
    expect(statusAt(50, 350)).toEqual([201]);
    expect(statusAt(350, 450)).toEqual([201]);
    expect(statusAt(450, 460)).toEqual([200]);
    expect(results.slice(450, 460).map((r) => r.id)).toEqual(results.slice(50, 60).map((r) => r.id));
    expect(statusAt(460, 470)).toEqual([400]);
    expect(results[462]!.error).toEqual({
      code: "invalidRequest",
      message: "text must be at most 1000 characters",
    });
    expect(results[463]!.error!.message).toBe("text must not contain control characters");
    expect(results[460]!.error!.message).toBe("text must not be empty");
    expect(statusAt(470, 480)).toEqual([404]);
    expect(results[470]!.error!.code).toBe("notFound");
    expect(statusAt(480, 490)).toEqual([400]);
    expect(statusAt(490, 500)).toEqual([201]);
    expect(
      results.filter((r) => r.status === 201 || r.status === 200).every((r) => typeof r.id === "string"),
    ).toBe(true);

    const calls = await world.sim.calls();
    expect(publishesOf(calls, us)).toBe(1);
    expect(publishesOf(calls, fr)).toBe(1);

    // Tags, read back from the simulator's store.
    expect(tagPaths(us, results[50]!.id!)).toEqual([
      "category=pricing",
      "origin=human",
      "source=api",
      "type=branded",
    ]);
    expect(tagPaths(us, results[51]!.id!)).toEqual([
      "category=support",
      "origin=human",
      "source=api",
      "type=non-branded",
    ]);
    expect(tagPaths(us, results[52]!.id!)).toEqual(["origin=human", "source=api", "type=non-branded"]);
    expect(tagPaths(fr, results[350]!.id!)).toEqual(["origin=human", "source=api", "type=non-branded"]);
    expect(us.prompts.get(results[490]!.id!)!.name).toBe("upper 0");
    // Every root dimension exists once, however many batches needed it.
    const roots = [...us.tags.values()]
      .filter((tag) => tag.parentId === null)
      .map((tag) => tag.name)
      .sort();
    // Made by the markets' creation: the five roots.
    expect(roots).toEqual(["category", "intent", "origin", "source", "type"]);
    expect(us.prompts.size).toBe(50 + 300 + 10);
    expect(fr.prompts.size).toBe(100);
    expect([...us.prompts.values()].every((prompt) => prompt.live)).toBe(true);
  });

  it("an upstream failure of the create fails that project's items with the generic 502", async () => {
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/v3/.*/aio/prompts$" },
      action: { status: 500, body: "Internal Server Error", contentType: "text/plain" },
      times: 1,
    });
    const answer = await world.call("POST", world.promptsUrl(), {
      items: [usItem("fault 1"), usItem("fault 2"), usItem("how to do task 1")],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.items.map((r: Result) => r.status)).toEqual([502, 502, 200]);
    expect(answer.body.items[0].error).toEqual({
      code: "serenityUpstreamError",
      message: "The upstream service failed.",
    });
  });

  it("a metered rejection (sub-workspace without prompt units) → 409 quotaExceeded per item", async () => {
    const { brandId } = await brandWithoutPromptUnits("No prompts", "Thrifty");
    const answer = await world.call("POST", world.promptsUrl(brandId), {
      items: [usItem("one"), usItem("two")],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.items.map((r: Result) => [r.status, r.error?.code])).toEqual([
      [409, "quotaExceeded"],
      [409, "quotaExceeded"],
    ]);
  });

  it("with dynamic allocation on, the same brand is topped up just in time: one read, one transfer, then 201s", async () => {
    const { brandId, subWorkspaceId } = await brandWithoutPromptUnits("Topped up", "Thrifty Plus");
    const poolBefore = await world.sim.totals(GOLD_PARENT_WORKSPACE_ID);
    const flag = process.env.SERENITY_DYNAMIC_ALLOCATION;
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    try {
      await world.sim.clearCalls();
      const answer = await world.call("POST", world.promptsUrl(brandId), {
        items: [usItem("one"), usItem("two"), usItem("three")],
      });
      expect(answer.status).toBe(201);
      expect(answer.body.items.map((r: Result) => r.status)).toEqual([201, 201, 201]);
      // One guarded section for the request: its read and its transfer come before the create.
      const calls = (await world.sim.calls()).map((call) => `${call.method} ${call.path}`);
      const read = `GET ${UM}/v1/workspaces/${subWorkspaceId}/resources`;
      const transfer = `POST ${UM}/v2/workspaces/${subWorkspaceId}/resources/transfer`;
      expect(calls.filter((call) => call === read)).toHaveLength(1);
      expect(calls.filter((call) => call === transfer)).toHaveLength(1);
      const firstCreate = calls.findIndex((call) => call.startsWith("POST") && call.endsWith("/aio/prompts"));
      expect(calls.indexOf(transfer)).toBeLessThan(firstCreate);
    } finally {
      process.env.SERENITY_DYNAMIC_ALLOCATION = flag;
    }
    // 3 texts × 1 model, rounded up to a block of 100 prompts, taken from the pool.
    expect(await world.sim.totals(subWorkspaceId)).toEqual({ projects: 1, prompts: 100 });
    expect(await world.sim.totals(GOLD_PARENT_WORKSPACE_ID)).toEqual({
      projects: poolBefore.projects,
      prompts: poolBefore.prompts - 100,
    });
    // Read outside the recorded calls: a ledger entry names the sub-workspace by design.
    const ledger = await callRoute<{ items: unknown[] }>(world.t.app, {
      method: "GET",
      url: `/v2/orgs/${world.orgId}/serenity/allocation-ledger?brandId=${brandId}&limit=1`,
      token: world.token,
    });
    expect(ledger.body.items[0]).toMatchObject({
      reason: "topUp",
      outcome: "applied",
      after: { prompts: 100 },
    });
  });

  it.each([
    [{ items: [] }],
    [{ items: Array.from({ length: 501 }, (_, i) => usItem(`t${i}`)) }],
    [{ items: [{ text: "x", languageCode: "en" }] }],
    [{ items: [{ ...usItem("x"), extra: true }] }],
    [{ items: [usItem("x")], extra: true }],
    [{ items: [{ text: 5, geoTargetId: 2840, languageCode: "en" }] }],
  ])("rejects a malformed request as a whole with 400 (%#)", async (body) => {
    const answer = await world.call("POST", world.promptsUrl(), body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalidRequest");
  });
});

describe("list and delete", () => {
  it("lists a market's prompts page by page with their tags", async () => {
    const first = await world.call("GET", `${world.promptsUrl()}?geoTargetId=2840&languageCode=en&limit=200`);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(us.prompts.size);
    expect(first.body.page).toBe(1);
    expect(first.body.items).toHaveLength(200);
    const second = await world.call(
      "GET",
      `${world.promptsUrl()}?geoTargetId=2840&languageCode=EN&page=2&limit=200`,
    );
    expect(second.body.items).toHaveLength(us.prompts.size - 200);
    const ids = new Set([...first.body.items, ...second.body.items].map((item: { id: string }) => item.id));
    expect(ids.size).toBe(us.prompts.size);
    const branded = first.body.items.find(
      (item: { text: string }) => item.text === "Is ACME good for task 0?",
    );
    expect(branded.isDraft).toBe(false);
    expect(
      branded.tags.map((tag: { dimension: string; name: string }) => `${tag.dimension}=${tag.name}`).sort(),
    ).toEqual(["category=pricing", "origin=human", "source=api", "type=branded"]);
  });

  it("published-only by default; includeDrafts=true shows drafts", async () => {
    // A draft written straight to the simulator (not published).
    await fetch(
      `${world.sim.url}/enterprise/projects/api/v3/workspaces/${GOLD_PARENT_WORKSPACE_ID}/projects/${fr.id}/aio/prompts`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
        body: JSON.stringify({ items: [{ name: "brouillon" }], tag_ids: [] }),
      },
    );
    const published = await world.call(
      "GET",
      `${world.promptsUrl()}?geoTargetId=2250&languageCode=fr&limit=200`,
    );
    expect(published.body.total).toBe(100);
    const drafts = await world.call(
      "GET",
      `${world.promptsUrl()}?geoTargetId=2250&languageCode=fr&includeDrafts=true&limit=200`,
    );
    expect(drafts.body.total).toBe(101);
    expect(drafts.body.items.find((item: { text: string }) => item.text === "brouillon").isDraft).toBe(true);
  });

  it.each([
    "geoTargetId=2840",
    "languageCode=en",
    "geoTargetId=x&languageCode=en",
    "geoTargetId=2840&languageCode=en&limit=201",
    "geoTargetId=2840&languageCode=en&page=0",
    "geoTargetId=2840&languageCode=en&includeDrafts=yes",
    "geoTargetId=2840&languageCode=en&other=1",
  ])("rejects the query %s with 400", async (query) => {
    const answer = await world.call("GET", `${world.promptsUrl()}?${query}`);
    expect(answer.status).toBe(400);
  });

  it("an unknown market → 404", async () => {
    expect((await world.call("GET", `${world.promptsUrl()}?geoTargetId=2276&languageCode=de`)).status).toBe(
      404,
    );
    const deleted = await world.call("DELETE", world.promptsUrl(), {
      geoTargetId: 2276,
      languageCode: "de",
      ids: ["1"],
    });
    expect(deleted.status).toBe(404);
  });

  it("deletes prompts by id → 204, and publishes the change", async () => {
    const page = await world.call("GET", `${world.promptsUrl()}?geoTargetId=2250&languageCode=fr&limit=5`);
    const ids = page.body.items.map((item: { id: string }) => item.id);
    await world.sim.clearCalls();
    const answer = await world.call("DELETE", world.promptsUrl(), {
      geoTargetId: 2250,
      languageCode: "fr",
      ids,
    });
    expect(answer.status).toBe(204);
    expect(ids.every((id: string) => !fr.prompts.has(id))).toBe(true);
    const calls = await world.sim.calls();
    expect(calls.map((call) => call.method)).toEqual(["DELETE", "POST"]);
    expect(publishesOf(calls, fr)).toBe(1);
    const after = await world.call(
      "GET",
      `${world.promptsUrl()}?geoTargetId=2250&languageCode=fr&includeDrafts=true`,
    );
    expect(after.body.total).toBe(101 - 5);
  });

  it.each([
    [{ geoTargetId: 2250, languageCode: "fr", ids: [] }],
    [{ geoTargetId: 2250, languageCode: "fr" }],
    [{ geoTargetId: 2250, languageCode: "fr", ids: ["a"], x: 1 }],
  ])("rejects the delete body %j with 400", async (body) => {
    expect((await world.call("DELETE", world.promptsUrl(), body)).status).toBe(400);
  });
});

/** `make` with SERENITY_MARKET_TAG_SEEDING off: a market as made before its creation seeded the tags. */
async function unseeded<T>(make: () => Promise<T>): Promise<T> {
  process.env.SERENITY_MARKET_TAG_SEEDING = "false";
  try {
    return await make();
  } finally {
    delete process.env.SERENITY_MARKET_TAG_SEEDING;
  }
}

describe("concurrent bulk requests on a fresh project", () => {
  it("both resolve the tag taxonomy (a lost tag-create race is recovered by looking up again)", async () => {
    // A market made before market creation seeded Serenity's tags: its first writes make them.
    const created = await unseeded(() =>
      world.call("POST", world.marketsUrl(), { market: "DE", languageCode: "de", modelIds: ["search-gpt"] }),
    );
    expect(created.status).toBe(201);
    const de = world.projects().find((p) => p.id === created.body.market.projectId)!;
    const batch = (prefix: string) => ({
      items: Array.from({ length: 20 }, (_, i) => ({
        text: `${prefix} ${i}`,
        geoTargetId: 2276,
        languageCode: "de",
        category: "c",
      })),
    });
    await world.sim.clearCalls();
    const answers = await Promise.all([
      world.call("POST", world.promptsUrl(), batch("eins")),
      world.call("POST", world.promptsUrl(), batch("zwei")),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    const roots = [...de.tags.values()]
      .filter((tag) => tag.parentId === null)
      .map((tag) => tag.name)
      .sort();
    expect(roots).toEqual(["category", "origin", "source", "type"]);
    expect(de.prompts.size).toBe(40);
    const paths = new Set([...de.prompts.values()].map((prompt) => tagPaths(de, prompt.id).join(",")));
    expect([...paths]).toEqual(["category=c,origin=human,source=api,type=non-branded"]);
  });
});

describe("tag creation failures", () => {
  it("a tag create that committed but answered 504 is recovered by looking up again", async () => {
    const created = await unseeded(() =>
      world.call("POST", world.marketsUrl(), { market: "AT", languageCode: "de", modelIds: ["search-gpt"] }),
    );
    const at = world.projects().find((p) => p.id === created.body.market.projectId)!;
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/aio/tags$" },
      action: { afterCommit504: true },
      times: 1,
    });
    const answer = await world.call("POST", world.promptsUrl(), {
      items: [{ text: "servus", geoTargetId: 2040, languageCode: "de" }],
    });
    expect(answer.status).toBe(201);
    expect(tagPaths(at, answer.body.items[0].id)).toEqual(["origin=human", "source=api", "type=non-branded"]);
  });

  it("a tag create that failed without effect fails the project's items with 502", async () => {
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/aio/tags$" },
      action: { status: 500 },
      times: 1,
    });
    const answer = await world.call("POST", world.promptsUrl(), {
      items: [{ text: "griaß di", geoTargetId: 2040, languageCode: "de", category: "new category" }],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.items[0]).toMatchObject({ status: 502, error: { code: "serenityUpstreamError" } });
  });
});
