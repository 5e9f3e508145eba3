import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brandLeases, markets } from "../../src/db/schema.ts";
import { type LifecycleWorld, startLifecycleWorld } from "../support/lifecycleWorld.ts";
import { PE } from "../support/simulator.ts";

/**
 * What a caller hears when another change got there first: a brand whose lease another
 * structural operation holds answers 503 `brandBusy` with Retry-After (never proceeds
 * unserialised); a project removed upstream by a concurrent change answers 404 (PUT models,
 * GET / DELETE prompts) or 409 (an activate whose new project vanished while it was being made),
 * never 502.
 */
process.env.SERENITY_DYNAMIC_ALLOCATION = "true";

let w: LifecycleWorld;
beforeAll(async () => {
  w = await startLifecycleWorld();
});
afterAll(() => w?.close());

async function brandWithMarket(name: string): Promise<{ brandId: string; base: string }> {
  const created = await w.http("POST", `/v2/orgs/${w.orgId}/brands`, {
    name,
    domain: `${name.toLowerCase().replace(/\W+/g, "-")}.example`,
    semrushMarket: { market: "US", languageCode: "en" },
  });
  expect(created.status).toBe(201);
  return { brandId: created.body.id, base: `/v2/orgs/${w.orgId}/brands/${created.body.id}/serenity` };
}

describe("a brand whose lease another operation holds", () => {
  it("answers 503 brandBusy with Retry-After, changes nothing, and serves once the lease is free or expired", async () => {
    const { brandId, base } = await brandWithMarket("Busy brand");
    const holder = "00000000-0000-4000-8000-000000000001";
    // Another process holds the brand's lease for a minute.
    await w.t.db.db.insert(brandLeases).values({ brandId, holder, expiresAt: new Date(Date.now() + 60_000) });
    process.env.SERENITY_BRAND_LEASE_TIMEOUT_MS = "1";
    try {
      await w.sim.clearCalls();
      for (const [method, path, body] of [
        ["POST", `${base}/deactivate`, {}],
        ["POST", `${base}/markets`, { market: "FR", languageCode: "fr" }],
        ["DELETE", `${base}/markets/2840/en`, undefined],
        ["POST", `${base}/activate`, { markets: [{ market: "DE", languageCode: "de" }] }],
      ] as const) {
        const answer = await w.http(method, path, body);
        expect([path, answer.status, answer.body.error]).toEqual([path, 503, "brandBusy"]);
        expect(answer.headers.get("retry-after")).toBe("2");
      }
      // Nothing structural reached upstream while another holder had the brand.
      const writes = (await w.sim.calls()).filter((call) => call.method !== "GET");
      expect(writes).toEqual([]);
      // Reads and prompt writes are not structural: they do not wait for the lease.
      expect((await w.http("GET", `${base}/markets`)).status).toBe(200);

      // The holder crashed: its lease expires, and the next operation takes it over.
      await w.t.db.db
        .update(brandLeases)
        .set({ expiresAt: new Date(Date.now() - 1_000) })
        .where(eq(brandLeases.brandId, brandId));
      expect((await w.http("POST", `${base}/deactivate`, {})).status).toBe(200);
      // And gives it back: the row is gone.
      expect(await w.t.db.db.select().from(brandLeases).where(eq(brandLeases.brandId, brandId))).toEqual([]);
    } finally {
      delete process.env.SERENITY_BRAND_LEASE_TIMEOUT_MS;
    }
  });
});

describe("a project removed upstream by a concurrent change", () => {
  it("PUT models, GET and DELETE prompts answer 404, not 502", async () => {
    const { brandId, base } = await brandWithMarket("Gone brand");
    const [row] = await w.t.db.db.select().from(markets).where(eq(markets.brandId, brandId));
    const removed = await fetch(
      `${w.sim.url}${PE}/v1/workspaces/${row!.workspaceId}/projects/${row!.projectId}`,
      {
        method: "DELETE",
        headers: { authorization: `Bearer ${w.token}` },
      },
    );
    expect(removed.status).toBe(204);
    const models = (await w.http("GET", "/v2/serenity/models")).body.items.map((m: { id: string }) => m.id);

    const put = await w.http("PUT", `${base}/markets/2840/en/models`, { modelIds: models.slice(0, 2) });
    expect([put.status, put.body.error]).toEqual([404, "notFound"]);
    const list = await w.http("GET", `${base}/prompts?geoTargetId=2840&languageCode=en`);
    expect([list.status, list.body.error]).toEqual([404, "notFound"]);
    const del = await w.http("DELETE", `${base}/prompts`, {
      geoTargetId: 2840,
      languageCode: "en",
      ids: ["p-1"],
    });
    expect([del.status, del.body.error]).toEqual([404, "notFound"]);
  });

  it("an activate whose new project vanishes while it is made answers 409 and leaves nothing upstream", async () => {
    const { brandId, base } = await brandWithMarket("Vanishing brand");
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/publish$" },
      action: { status: 404, body: { message: "not found" } },
      times: 1,
    });
    const activated = await w.http("POST", `${base}/activate`, {
      markets: [{ market: "FR", languageCode: "fr" }],
    });
    expect([activated.status, activated.body.error]).toEqual([409, "conflict"]);
    const upstream = await w.upstream();
    expect(upstream.untrackedProjects).toEqual([]);
    const rows = await w.t.db.db.select().from(markets).where(eq(markets.brandId, brandId));
    expect(rows.map((market) => market.geoTargetId)).toEqual([2840]);
  });
});
