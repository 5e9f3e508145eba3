import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { catalogueLanguageId, catalogueModelId, PE } from "../../support/simulator.ts";

let world: MarketWorld;
let otherOrgId: string;
let otherBrandId: string;
let otherToken: string;
let otherParent: string;

beforeAll(async () => {
  world = await startMarketWorld();
  // Org B, its brand and a market, made by B's own member.
  // Org B has a pool of its own (one org per pool).
  otherParent = await world.sim.addParent({ title: "Org B parent" });
  otherOrgId = await world.createOrg(otherParent);
  otherBrandId = await world.createBrand({ orgId: otherOrgId, name: "Other" });
  otherToken = await world.t.token({ sub: "user-b", orgs: [otherOrgId] });
  const created = await world.call(
    "POST",
    world.marketsUrl(otherBrandId, otherOrgId),
    { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
    otherToken,
  );
  expect(created.status).toBe(201);
  const prompts = await world.call(
    "POST",
    world.promptsUrl(otherBrandId, otherOrgId),
    { items: [{ text: "other prompt", geoTargetId: 2840, languageCode: "en" }] },
    otherToken,
  );
  expect(prompts.status).toBe(201);
});

afterAll(async () => {
  expectNoLeaks(world.responses, {
    bearers: [world.token, otherToken],
    workspaceIds: [GOLD_PARENT_WORKSPACE_ID, otherParent],
  });
  await world.close();
});

/** Every route of markets and prompts, for a given org and brand. */
function routes(orgId: string, brandId: string): [string, string, unknown][] {
  const markets = world.marketsUrl(brandId, orgId);
  const prompts = world.promptsUrl(brandId, orgId);
  return [
    ["POST", markets, { market: "FR", languageCode: "fr" }],
    ["GET", markets, undefined],
    ["DELETE", `${markets}/2840/en`, undefined],
    ["PUT", `${markets}/2840/en/models`, { modelIds: ["gpt-5"] }],
    ["POST", `${markets}/2840/en/prompt-preview`, { count: 5 }],
    ["POST", prompts, { items: [{ text: "sneaky", geoTargetId: 2840, languageCode: "en" }] }],
    ["GET", `${prompts}?geoTargetId=2840&languageCode=en`, undefined],
    ["DELETE", prompts, { geoTargetId: 2840, languageCode: "en", ids: ["1"] }],
  ];
}

describe("tenancy", () => {
  it("every route answers 404 for another org's brand, exactly as for a missing one, and changes nothing", async () => {
    await world.sim.clearCalls();
    const missingOrg = "00000000-0000-4000-8000-000000000000";
    const cases = [
      ...routes(otherOrgId, otherBrandId), // B's org and brand
      ...routes(world.orgId, otherBrandId), // our org, B's brand
      ...routes(missingOrg, otherBrandId), // an org that does not exist
    ];
    for (const [method, url, body] of cases) {
      const answer = await world.call(method, url, body);
      expect(answer.status, `${method} ${url}`).toBe(404);
      expect(answer.body).toMatchObject({ error: "notFound", message: "The resource was not found." });
    }
    expect(await world.sim.calls()).toEqual([]);
    const own = await world.call("GET", world.marketsUrl(otherBrandId, otherOrgId), undefined, otherToken);
    expect(own.body.items).toHaveLength(1);
    expect(own.body.items[0].promptCount).toBe(1);
  });

  it("ids in paths are validated before any lookup", async () => {
    const answer = await world.call("GET", `/v2/orgs/not-a-uuid/brands/${world.brandId}/serenity/markets`);
    expect(answer.status).toBe(400);
  });

  it("no token → 401 on every route", async () => {
    for (const [method, url] of routes(world.orgId, world.brandId)) {
      const response = await world.t.app.inject({ method: method as "GET", url });
      expect(response.statusCode).toBe(401);
    }
  });
});

describe("catalogues", () => {
  it("GET /v2/serenity/models: the whole upstream catalogue", async () => {
    const answer = await world.call("GET", "/v2/serenity/models");
    expect(answer.status).toBe(200);
    const keys = answer.body.items.map((model: { key: string }) => model.key);
    expect(keys).toEqual(expect.arrayContaining(["search-gpt", "gpt-5", "google-ai-overview", "perplexity"]));
    // The live catalogue: 11 models (OpenEvidence among them), UUID ids, the live names.
    expect(answer.body.items).toHaveLength(11);
    expect(answer.body.items).toContainEqual({
      id: catalogueModelId("search-gpt"),
      key: "search-gpt",
      name: "ChatGPT",
    });
  });

  it("GET /v2/serenity/languages: {items: [{code, name, id}]} with ISO codes and the live UUID ids", async () => {
    const answer = await world.call("GET", "/v2/serenity/languages");
    expect(answer.status).toBe(200);
    expect(answer.body.items).toEqual(
      expect.arrayContaining([
        { code: "en", name: "English", id: catalogueLanguageId("en") },
        { code: "fr", name: "French", id: catalogueLanguageId("fr") },
        { code: "tl", name: "Filipino", id: catalogueLanguageId("fil") },
        // The live catalogue's name for it, which Intl does not give.
        { code: "zh", name: "Chinese Simplified", id: catalogueLanguageId("zh") },
      ]),
    );
    // The live catalogue's 38 but Chinese Traditional (zh-TW: no two- or three-letter code).
    expect(answer.body.items).toHaveLength(37);
  });

  it("needs a token, and maps an upstream failure on a cold cache to the generic 502", async () => {
    expect((await world.t.app.inject({ method: "GET", url: "/v2/serenity/languages" })).statusCode).toBe(401);
    // A fresh app has a cold catalogue cache.
    const { createTestApp } = await import("../../support/testApp.ts");
    const cold = await createTestApp({ gateway: { url: world.sim.url, maxRetries: 0 }, db: world.t.db });
    try {
      await world.sim.control("/faults", {
        match: { method: "GET", pathPattern: `^${PE}/v1/ai_models$` },
        action: { status: 503 },
        times: 1,
      });
      const response = await cold.app.inject({
        method: "GET",
        url: "/v2/serenity/models",
        headers: { authorization: `Bearer ${world.token}` },
      });
      world.responses.push(response.body);
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({ error: "serenityUpstreamError" });
    } finally {
      await cold.close();
    }
  });
});
