import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brands } from "../../../src/db/schema.ts";
import { applyMarketIdentity } from "../../../src/markets/marketIdentity.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";

/**
 * The review findings on issue 37's brand identity (docs/decisions/0041, "Review fixes"), each
 * against the simulator over real HTTP with the real job runner.
 */

let world: MarketWorld;

beforeAll(async () => {
  world = await startMarketWorld();
  const answer = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

async function brandRow(brandId = world.brandId) {
  const [row] = await world.t.db.db.select().from(brands).where(eq(brands.id, brandId));
  return row!;
}

const usProject = () => world.projects().find((p) => p.locationId === 2840)!;

describe("benchmark updates whose names form a cycle", () => {
  it("a cycle that the first pending update is not part of still converges", async () => {
    const ref = () => ({ bearer: world.token, ws: usProject().workspaceId, pid: usProject().id });
    const base = await brandRow();
    const before = {
      ...base,
      name: "Acme",
      aliases: [],
      competitors: [
        { name: "Pear", domain: "b.com", aliases: ["Rook"] },
        { name: "Quill", domain: "c.com", aliases: [] },
      ],
      urls: [],
    };
    await applyMarketIdentity(world.t.gateway!, ref(), before);
    // The own brand takes "Pear", b.com takes c.com's "Quill", c.com takes b.com's alias "Rook".
    const after = {
      ...before,
      name: "Pear",
      competitors: [
        { name: "Quill", domain: "b.com", aliases: [] },
        { name: "Rook", domain: "c.com", aliases: [] },
      ],
    };
    const outcome = await applyMarketIdentity(world.t.gateway!, ref(), after);
    expect(outcome.drift.benchmarks).toBe(true);
    const benchmarks = [...usProject().benchmarks.values()];
    expect(benchmarks.map((b) => [b.mainBrand, b.brandName, b.brandAliases, b.domain])).toEqual([
      [true, "Pear", [], base.domain],
      [false, "Quill", [], "b.com"],
      [false, "Rook", [], "c.com"],
    ]);
    // The project goes back to the brand's own identity for the next cases.
    await applyMarketIdentity(world.t.gateway!, ref(), base);
  }, 20_000);
});
