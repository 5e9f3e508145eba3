import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { findKnownTags } from "../../../src/db/markets/findKnownTags.ts";
import { forgetKnownTagIds } from "../../../src/db/markets/forgetKnownTagIds.ts";
import { replaceKnownTags } from "../../../src/db/markets/replaceKnownTags.ts";
import { markets } from "../../../src/db/schema.ts";
import { TAG_RECORD_MAX_AGE_MS } from "../../../src/prompts/tagDimensions.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import type { SimProject } from "../../../src/simulator/store/types.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";

/**
 * A listing names its prompts' tag dimensions from the record Serenity keeps of the market's tags
 * (ADR 0040): one upstream call per list once the record holds every listed tag, and the record
 * never drifts from upstream — a tag it lacks (made upstream behind Serenity's back) costs one tree
 * read and is named right, a re-parent behind its back is named right once the record is older than
 * TAG_RECORD_MAX_AGE_MS, and a move through Serenity is named right at once.
 */

let world: MarketWorld;
let clock: ManualClock;
let us: SimProject;

beforeAll(async () => {
  clock = new ManualClock(new Date());
  world = await startMarketWorld({ clock });
  const made = await world.call("POST", world.marketsUrl(), {
    market: "US",
    languageCode: "en",
    modelIds: ["search-gpt"],
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  us = world.projects().find((p) => p.locationId === 2840)!;
});
afterAll(() => world.close());

const ref = () => ({ bearer: world.token, workspaceId: GOLD_PARENT_WORKSPACE_ID, projectId: us.id });
const categoriesUrl = () =>
  `/v2/orgs/${world.orgId}/brands/${world.brandId}/serenity/markets/2840/en/categories`;

/** The prompts listed, each `text: dimension=name…`, and the upstream calls the listing made. */
async function listed(): Promise<{ named: Record<string, string[]>; calls: string[] }> {
  await world.sim.clearCalls();
  const answer = await world.call(
    "GET",
    `${world.promptsUrl()}?geoTargetId=2840&languageCode=en&includeDrafts=true&limit=200`,
  );
  expect(answer.status).toBe(200);
  const named: Record<string, string[]> = {};
  for (const item of answer.body.items as {
    text: string;
    tags: { name: string; dimension: string | null }[];
  }[])
    named[item.text] = item.tags.map((tag) => `${tag.dimension ?? "-"}=${tag.name}`).sort();
  const calls = (await world.sim.calls()).map(
    (call) => `${call.method} ${call.path.replace(/.*\/aio\//, "")}`,
  );
  return { named, calls };
}

describe("a listing names dimensions from Serenity's record of the market's tags", () => {
  it("costs one upstream call once the record is fresh and holds every listed tag", async () => {
    const written = await world.call("POST", world.promptsUrl(), {
      items: [
        { text: "record one?", geoTargetId: 2840, languageCode: "en", category: "alpha" },
        { text: "record two?", geoTargetId: 2840, languageCode: "en" },
      ],
    });
    expect(written.status).toBe(201);
    await listed(); // may read the tree once: the record may predate the write's tags
    const { named, calls } = await listed();
    expect(calls).toEqual(["POST prompts/by_tags"]);
    expect(named["record one?"]).toEqual([
      "category=alpha",
      "origin=human",
      "source=api",
      "type=non-branded",
    ]);
  });

  it("a tag made upstream behind its back: one tree read names it, the next list costs one call", async () => {
    const gateway = world.t.gateway!.projects;
    const { bearer, workspaceId, projectId } = ref();
    const roots = await gateway.listTags(bearer, workspaceId, projectId, { search: "" });
    const categoryRoot = roots.find((tag) => tag.parentId === null && tag.name === "category")!;
    const [beta] = await gateway.createTags(bearer, workspaceId, projectId, {
      names: ["beta"],
      parentId: categoryRoot.id,
    });
    const two = [...us.prompts.values()].find((prompt) => prompt.name === "record two?")!;
    await gateway.setPromptTags(bearer, workspaceId, projectId, [
      { promptId: two.id, tagIds: [beta!.id], replace: false },
    ]);

    const first = await listed();
    expect(first.named["record two?"]).toContain("category=beta");
    expect(first.calls[0]).toBe("POST prompts/by_tags");
    expect(first.calls.filter((call) => call.startsWith("GET tags")).length).toBeGreaterThan(0);
    expect(first.calls.length).toBeLessThanOrEqual(1 + 6);
    expect((await listed()).calls).toEqual(["POST prompts/by_tags"]);
  });

  it("a re-parent behind its back is named right once the record is older than its bound", async () => {
    const gateway = world.t.gateway!.projects;
    const { bearer, workspaceId, projectId } = ref();
    const categories = (await world.call("GET", categoriesUrl())).body.items as {
      id: string;
      name: string;
    }[];
    const alpha = categories.find((category) => category.name === "alpha")!;
    const beta = categories.find((category) => category.name === "beta")!;
    await gateway.patchTag(bearer, workspaceId, projectId, beta.id, { name: "beta", parentId: alpha.id });

    // Within the bound the record still names it (no read): what the bound allows, and no more.
    expect((await listed()).named["record two?"]).toContain("category=beta");
    clock.advance(TAG_RECORD_MAX_AGE_MS + 1);
    const late = await listed();
    expect(late.named["record two?"]).toContain("-=beta");
    expect(late.calls.length).toBeGreaterThan(1);
    expect((await listed()).calls).toEqual(["POST prompts/by_tags"]);
  });

  it("a move through Serenity is named right at once", async () => {
    const categories = (await world.call("GET", categoriesUrl())).body.items as {
      id: string;
      name: string;
    }[];
    const beta = categories.find((category) => category.name === "beta")!;
    const moved = await world.call("PATCH", `${categoriesUrl()}/${beta.id}`, { parentId: null });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((await listed()).named["record two?"]).toContain("category=beta");
  });

  it("a tree read overtaken by a rename through Serenity is not written back over it", async () => {
    const db = world.t.db.db;
    const [market] = await db
      .select({ id: markets.id })
      .from(markets)
      .where(eq(markets.brandId, world.brandId));
    const marketId = market!.id;
    // A listing saw the record, then read the tree; meanwhile a rename forgot one category's id.
    const seen = (await findKnownTags(db, [marketId])).get(marketId)!;
    const renamed = seen.find((row) => row.tagKey.startsWith("category="))!;
    await forgetKnownTagIds(db, marketId, [renamed.tagId]);
    const stale = new Map(seen.map((row) => [row.tagKey, row.tagId]));
    const replace = (rows: typeof seen) =>
      replaceKnownTags(db, { marketId, projectId: us.id, tags: stale, knownAt: clock.now(), seen: rows });
    expect(await replace(seen)).toBe(false);
    const after = (await findKnownTags(db, [marketId])).get(marketId) ?? [];
    expect(after.some((row) => row.tagId === renamed.tagId)).toBe(false);
    // A read that saw the record as it is now is written.
    expect(await replace(after)).toBe(true);
  });
});
