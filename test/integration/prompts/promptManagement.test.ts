import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { promptDeletions } from "../../../src/db/schema.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import type { SimProject } from "../../../src/simulator/store/types.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";

/**
 * Issue 36's routes over HTTP against the simulator (spec/api.md §5): edit in place, the category
 * tree, the list's search / sort / filters / cursor, bulk delete across markets, one market's
 * detail — with tenancy (another org's brand → 404), bad input (a 4xx with a registry code and
 * nothing written upstream) and every declared 409 provoked.
 */

let world: MarketWorld;
let us: SimProject;
let fr: SimProject;
let otherToken: string;

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
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  }
  us = world.projects().find((p) => p.locationId === 2840)!;
  fr = world.projects().find((p) => p.locationId === 2250)!;
  const otherOrg = await world.createOrg(null);
  otherToken = await world.t.token({ sub: "user-2", orgs: [otherOrg] });
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

const US = { geoTargetId: 2840, languageCode: "en" };
const brandUrl = () => `/v2/orgs/${world.orgId}/brands/${world.brandId}/serenity`;
const categoriesUrl = (slice = "2840/en") => `${brandUrl()}/markets/${slice}/categories`;

async function write(texts: string[], slice = US, category?: string): Promise<string[]> {
  const answer = await world.call("POST", world.promptsUrl(), {
    items: texts.map((text) => ({ text, ...slice, ...(category ? { category } : {}) })),
  });
  expect(answer.status).toBe(201);
  return answer.body.items.map((item: { id: string }) => item.id);
}

/** The simulator's state of a project: a fingerprint to show a refused request wrote nothing. */
const snapshot = (project: SimProject) =>
  JSON.stringify({
    prompts: [...project.prompts.values()].map((p) => [p.id, p.name, [...p.tagIds].sort()]),
    tags: [...project.tags.values()].map((t) => [t.id, t.name, t.parentId]),
  });

function tagNames(project: SimProject, promptId: string): string[] {
  return project.prompts
    .get(promptId)!
    .tagIds.map((id) => {
      const tag = project.tags.get(id)!;
      return `${tag.parentId ? project.tags.get(tag.parentId)!.name : ""}=${tag.name}`;
    })
    .sort();
}

describe("PATCH …/prompts/:promptId (edit in place)", () => {
  it("sets the text in place (id kept), re-derives its type, moves its category, records who and when, publishes once", async () => {
    const [id] = await write(["Which running shoe is best?"], US, "shoes");
    await world.sim.clearCalls();
    const answer = await world.call("PATCH", `${world.promptsUrl()}/${id}`, {
      ...US,
      text: "Is the Acme runner the best shoe?",
      category: "running",
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ id, text: "Is the Acme runner the best shoe?", updatedBy: "user-1" });
    expect(us.prompts.get(id!)!.name).toBe("Is the Acme runner the best shoe?");
    expect(tagNames(us, id!)).toEqual(["category=running", "origin=human", "source=api", "type=branded"]);
    const calls = await world.sim.calls();
    expect(calls.filter((c) => c.path.endsWith("/publish"))).toHaveLength(1);
    expect(calls.filter((c) => c.method === "PATCH" && c.path.includes("/v3/"))).toHaveLength(1);
    // Published: the live list shows the new text under the same id.
    const listed = await world.call(
      "GET",
      `${world.promptsUrl()}?geoTargetId=2840&languageCode=en&search=acme+runner`,
    );
    expect(listed.body.items.map((item: { id: string; text: string }) => [item.id, item.text])).toEqual([
      [id, "Is the Acme runner the best shoe?"],
    ]);
  });

  it("a text another prompt of the market has → 409 promptExists, nothing changed", async () => {
    const [a] = await write(["duplicate one?", "duplicate two?"]);
    const before = snapshot(us);
    const answer = await world.call("PATCH", `${world.promptsUrl()}/${a}`, { ...US, text: "duplicate two?" });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe("promptExists");
    expect(snapshot(us)).toBe(before);
  });

  it("bad input → 400 invalidRequest and nothing written: empty text, 1,001 characters, no change asked", async () => {
    const [id] = await write(["bad input target?"]);
    const before = snapshot(us);
    for (const body of [{ ...US, text: "   " }, { ...US, text: "x".repeat(1001) }, { ...US }]) {
      const answer = await world.call("PATCH", `${world.promptsUrl()}/${id}`, body);
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(answer.body.code).toBe("invalidRequest");
    }
    expect(snapshot(us)).toBe(before);
  });

  it("a prompt of another market, an unknown id, another org's caller → 404", async () => {
    const [frId] = await write(["une question ?"], { geoTargetId: 2250, languageCode: "fr" });
    expect(
      (await world.call("PATCH", `${world.promptsUrl()}/${frId}`, { ...US, text: "moved?" })).status,
    ).toBe(404);
    expect((await world.call("PATCH", `${world.promptsUrl()}/nope`, { ...US, text: "x?" })).status).toBe(404);
    const foreign = await world.call(
      "PATCH",
      `${world.promptsUrl()}/${frId}`,
      { ...US, text: "x?" },
      otherToken,
    );
    expect(foreign.status).toBe(404);
    expect(fr.prompts.get(frId!)!.name).toBe("une question ?");
  });

  it("the same edit again under the same Idempotency-Key answers the same and writes nothing twice", async () => {
    const [id] = await write(["idempotent edit?"]);
    const send = () =>
      world.t.app.inject({
        method: "PATCH",
        url: `${world.promptsUrl()}/${id}`,
        headers: { authorization: `Bearer ${world.token}`, "idempotency-key": `edit-${id}` },
        payload: { ...US, text: "idempotent edit, done?" },
      });
    const first = await send();
    expect(first.statusCode).toBe(200);
    await world.sim.clearCalls();
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await world.sim.calls()).toEqual([]);
  });
});

describe("PATCH …/prompts/:promptId when the upstream fails", () => {
  it("a failed publish after the edit is reported (502), the edit a draft; the same request again publishes", async () => {
    const [id] = await write(["publish fails after?"]);
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/publish$" },
      action: { status: 500, body: "Internal Server Error", contentType: "text/plain" },
      times: 1,
    });
    const body = { ...US, text: "publish fails after, fixed?" };
    const failed = await world.call("PATCH", `${world.promptsUrl()}/${id}`, body);
    expect([failed.status, failed.body.code]).toEqual([502, "serenityUpstreamError"]);
    expect(us.prompts.get(id!)).toMatchObject({ name: body.text, liveName: "publish fails after?" });

    const again = await world.call("PATCH", `${world.promptsUrl()}/${id}`, body);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(us.prompts.get(id!)).toMatchObject({ name: body.text, liveName: body.text });
  });

  it("an Idempotency-Key reused with another body → 422 idempotencyKeyReused, nothing written", async () => {
    const [id] = await write(["reused key?"]);
    const send = (text: string) =>
      world.t.app.inject({
        method: "PATCH",
        url: `${world.promptsUrl()}/${id}`,
        headers: { authorization: `Bearer ${world.token}`, "idempotency-key": `reuse-${id}` },
        payload: { ...US, text },
      });
    expect((await send("reused key, once?")).statusCode).toBe(200);
    const before = snapshot(us);
    const reused = await send("reused key, twice?");
    expect([reused.statusCode, reused.json().code]).toEqual([422, "idempotencyKeyReused"]);
    expect(snapshot(us)).toBe(before);
  });
});

describe("categories of a market", () => {
  it("create, nest, rename, move, list flat and as a tree", async () => {
    const make = async (name: string, parentId?: string) => {
      const answer = await world.call("POST", categoriesUrl(), parentId ? { name, parentId } : { name });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body as { id: string; depth: number };
    };
    const apparel = await make("apparel");
    const boots = await make("boots", apparel.id);
    expect(boots.depth).toBe(2);
    const renamed = await world.call("PATCH", `${categoriesUrl()}/${boots.id}`, { name: "winter boots" });
    expect(renamed.body).toMatchObject({ id: boots.id, name: "winter boots", parentId: apparel.id });
    const moved = await world.call("PATCH", `${categoriesUrl()}/${boots.id}`, { parentId: null });
    expect(moved.body).toMatchObject({ parentId: null, depth: 1 });
    await world.call("PATCH", `${categoriesUrl()}/${boots.id}`, { parentId: apparel.id });
    const tree = await world.call("GET", `${categoriesUrl()}?tree=true`);
    const node = tree.body.items.find((item: { id: string }) => item.id === apparel.id);
    expect(node.children.map((child: { name: string }) => child.name)).toEqual(["winter boots"]);
    const flat = await world.call("GET", categoriesUrl());
    expect(flat.body.items.map((item: { name: string }) => item.name)).toEqual(
      expect.arrayContaining(["apparel", "winter boots"]),
    );
  });

  it("refuses a sibling's name (409 categoryExists), a cycle and an unknown parent (400), nothing written", async () => {
    const a = (await world.call("POST", categoriesUrl(), { name: "cycle a" })).body;
    const b = (await world.call("POST", categoriesUrl(), { name: "cycle b", parentId: a.id })).body;
    const before = snapshot(us);
    const clash = await world.call("POST", categoriesUrl(), { name: "cycle a" });
    expect([clash.status, clash.body.code]).toEqual([409, "categoryExists"]);
    const cycle = await world.call("PATCH", `${categoriesUrl()}/${a.id}`, { parentId: b.id });
    expect([cycle.status, cycle.body.code]).toEqual([400, "invalidRequest"]);
    const unknown = await world.call("POST", categoriesUrl(), { name: "orphan", parentId: "no-such-tag" });
    expect([unknown.status, unknown.body.code]).toEqual([400, "invalidRequest"]);
    expect((await world.call("PATCH", `${categoriesUrl()}/no-such-tag`, { name: "x" })).status).toBe(404);
    expect(snapshot(us)).toBe(before);
  });

  it("delete: refused while prompts use it (409 categoryInUse), else their prompts move to reassignTo", async () => {
    const [id] = await write(["which sandal?"], US, "sandals");
    const categories = (await world.call("GET", categoriesUrl())).body.items as {
      id: string;
      name: string;
    }[];
    const sandals = categories.find((c) => c.name === "sandals")!;
    const target = (await world.call("POST", categoriesUrl(), { name: "summer" })).body;
    const before = snapshot(us);
    const refused = await world.call("DELETE", `${categoriesUrl()}/${sandals.id}`);
    expect([refused.status, refused.body.code]).toEqual([409, "categoryInUse"]);
    expect(snapshot(us)).toBe(before);
    const deleted = await world.call("DELETE", `${categoriesUrl()}/${sandals.id}?reassignTo=${target.id}`);
    expect(deleted.status).toBe(204);
    expect(tagNames(us, id!)).toContain("category=summer");
    expect([...us.tags.values()].some((tag) => tag.id === sandals.id)).toBe(false);
  });

  it("another org's caller and an unknown market → 404", async () => {
    expect((await world.call("GET", categoriesUrl(), undefined, otherToken)).status).toBe(404);
    expect((await world.call("GET", categoriesUrl("2276/de"))).status).toBe(404);
  });
});

describe("GET …/prompts: search, filters, sort, cursor", () => {
  it("sorts by text either way, filters by category, and pages by a cursor that survives a delete before it", async () => {
    const texts = ["sort a?", "sort b?", "sort c?", "sort d?", "sort e?"];
    const ids = await write(texts, US, "sorting");
    const list = (query: string) =>
      world.call("GET", `${world.promptsUrl()}?geoTargetId=2840&languageCode=en&includeDrafts=true&${query}`);
    const desc = await list("search=SORT&sort=text&order=desc");
    expect(desc.body.items.map((item: { text: string }) => item.text)).toEqual([...texts].reverse());
    expect(desc.body.items[0]).toMatchObject({ createdBy: "user-1" });
    const sorting = (await world.call("GET", categoriesUrl())).body.items.find(
      (c: { name: string }) => c.name === "sorting",
    );
    const filtered = await list(`categoryIds=${sorting.id}`);
    expect(filtered.body.total).toBe(5);

    const first = await list("search=sort&sort=text&limit=2");
    expect(first.body.items.map((item: { text: string }) => item.text)).toEqual(["sort a?", "sort b?"]);
    // Someone deletes "sort a?" before the next page is read: nothing is skipped or repeated.
    expect((await world.call("DELETE", world.promptsUrl(), { ...US, ids: [ids[0]] })).status).toBe(204);
    const second = await list(`search=sort&sort=text&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((item: { text: string }) => item.text)).toEqual(["sort c?", "sort d?"]);
    const stale = await list(`search=other&sort=text&limit=2&cursor=${first.body.nextCursor}`);
    expect([stale.status, stale.body.code]).toEqual([400, "invalidRequest"]);
  });
});

describe("POST …/prompts/bulk-delete", () => {
  it("deletes across markets with per-market results, one publish per market; an unknown market fails alone", async () => {
    const usIds = await write(["bulk us 1?", "bulk us 2?"]);
    const frIds = await write(["bulk fr 1 ?"], { geoTargetId: 2250, languageCode: "fr" });
    await world.sim.clearCalls();
    const answer = await world.call("POST", `${world.promptsUrl()}/bulk-delete`, {
      items: [
        { ...US, ids: usIds },
        { geoTargetId: 2250, languageCode: "fr", ids: frIds },
        { geoTargetId: 2276, languageCode: "de", ids: ["x"] },
      ],
    });
    expect(answer.status).toBe(207);
    expect(answer.body.items.map((item: { status: number }) => item.status)).toEqual([204, 204, 404]);
    expect(usIds.some((id) => us.prompts.has(id))).toBe(false);
    expect(fr.prompts.has(frIds[0]!)).toBe(false);
    const publishes = (await world.sim.calls()).filter((c) => c.path.endsWith("/publish"));
    expect(publishes.map((c) => c.path.includes(us.id) || c.path.includes(fr.id))).toEqual([true, true]);

    // Who deleted what is kept: one row per market deleted from, with the caller and the ids.
    const rows = await world.t.db.db
      .select()
      .from(promptDeletions)
      .where(eq(promptDeletions.brandId, world.brandId));
    const kept = rows.filter((row) => row.promptIds.some((id) => [...usIds, ...frIds].includes(id)));
    expect(kept.map((row) => [row.actor, [...row.promptIds].sort(), row.orgId])).toEqual(
      expect.arrayContaining([
        ["user-1", [...usIds].sort(), world.orgId],
        ["user-1", [...frIds].sort(), world.orgId],
      ]),
    );
    expect(kept).toHaveLength(2);
    expect(kept.every((row) => row.requestId !== null)).toBe(true);
  });

  it("501 ids → 400 invalidRequest, nothing deleted; another org's caller → 404", async () => {
    const ids = await write(["kept?"]);
    const tooMany = await world.call("POST", `${world.promptsUrl()}/bulk-delete`, {
      items: [{ ...US, ids: [...ids, ...Array.from({ length: 500 }, (_, i) => `x${i}`)] }],
    });
    expect([tooMany.status, tooMany.body.code]).toEqual([400, "invalidRequest"]);
    const foreign = await world.call(
      "POST",
      `${world.promptsUrl()}/bulk-delete`,
      { items: [{ ...US, ids }] },
      otherToken,
    );
    expect(foreign.status).toBe(404);
    expect(us.prompts.has(ids[0]!)).toBe(true);
  });
});

describe("GET …/markets/:geoTargetId/:languageCode", () => {
  it("answers the market with its project id, publish and init status, models, prompt and category counts", async () => {
    const answer = await world.call("GET", `${world.marketsUrl()}/2840/en`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      projectId: us.id,
      initialized: true,
      geoTargetId: 2840,
      languageCode: "en",
    });
    expect(answer.body.promptCount).toBe(us.prompts.size);
    expect(answer.body.categoryCount).toBeGreaterThan(0);
    expect((await world.call("GET", `${world.marketsUrl()}/2276/de`)).status).toBe(404);
    expect((await world.call("GET", `${world.marketsUrl()}/2840/en`, undefined, otherToken)).status).toBe(
      404,
    );
  });
});
