import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { markets } from "../../../src/db/schema.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { callShape, expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { catalogueLanguageId, PE } from "../../support/simulator.ts";

let world: MarketWorld;
const subWorkspaceIds: string[] = [];

beforeAll(async () => {
  world = await startMarketWorld();
});

afterAll(async () => {
  expectNoLeaks(world.responses, {
    bearers: [world.token],
    workspaceIds: [GOLD_PARENT_WORKSPACE_ID, ...subWorkspaceIds],
  });
  await world.close();
});

async function marketRows(brandId: string) {
  return world.t.db.db.select().from(markets).where(eq(markets.brandId, brandId));
}

const TAG_CREATE = `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/aio/tags`;
const withoutTagCreates = (calls: string[]) => calls.filter((line) => line !== TAG_CREATE);

/** The roots, then the values under origin, source and type: four creates, all before the publish. */
function expectTagsMadeBeforePublish(calls: string[]): void {
  const publish = calls.indexOf(`POST ${PE}/v1/workspaces/{ws}/projects/{pid}/publish`);
  expect(calls.filter((line) => line === TAG_CREATE)).toHaveLength(4);
  expect(calls.lastIndexOf(TAG_CREATE)).toBeLessThan(publish);
  expect(calls.filter((line) => line.includes("/aio/") && line !== TAG_CREATE)).toEqual([]);
}

describe("create market (flat brand, gold parent)", () => {
  it("creates, patches the primary URL, attaches the default models and publishes, in that order", async () => {
    await world.sim.clearCalls();
    const answer = await world.call("POST", world.marketsUrl(), { market: "us", languageCode: "EN" });
    expect(answer.status).toBe(201);
    const market = answer.body.market;
    expect(market).toMatchObject({
      geoTargetId: 2840,
      languageCode: "en",
      country: "US",
      publishStatus: "publishing",
      promptCount: 0,
    });
    expect(market.models.map((model: { key: string }) => model.key)).toEqual([
      "search-gpt",
      "google-ai-overview",
      "perplexity",
    ]);
    const [project] = world.projects(GOLD_PARENT_WORKSPACE_ID);
    expect(project!.id).toBe(market.projectId);
    const ids = { ws: GOLD_PARENT_WORKSPACE_ID, pid: project!.id };
    const calls = callShape(await world.sim.calls(), ids);
    expect(withoutTagCreates(calls)).toEqual([
      `GET ${PE}/v1/languages`,
      `GET ${PE}/v1/ai_models`,
      `POST ${PE}/v1/workspaces/{ws}/projects`,
      `PATCH ${PE}/v1/workspaces/{ws}/projects/{pid}`,
      // The project starts with upstream's default model (search-gpt), so only the others are added.
      `GET ${PE}/v1/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v1/workspaces/{ws}/projects/{pid}/publish`,
    ]);
    // After the model adds, before the publish: Serenity's tags (issue 36, item 6).
    expectTagsMadeBeforePublish(calls);
    expect([...project!.tags.values()].filter((tag) => tag.parentId === null).map((tag) => tag.name)).toEqual(
      ["category", "intent", "origin", "type", "source"],
    );
    expect(project).toMatchObject({
      countryCode: "us",
      locationId: 2840,
      locationName: "United States",
      domain: "acme.example",
      primaryUrl: "https://acme.example/",
      brandNameDisplay: "Acme",
      brandNames: ["Acme"],
      publishState: "live",
    });
    expect((await marketRows(world.brandId)).map((row) => [row.status, row.projectId])).toEqual([
      ["ready", project!.id],
    ]);
  });

  it("uses the request's models and primary URL; the catalogues come from the process cache", async () => {
    await world.sim.clearCalls();
    const answer = await world.call("POST", world.marketsUrl(), {
      market: "FR",
      languageCode: "fr",
      primaryUrl: "https://acme.example/fr",
      modelIds: ["gpt-5"],
    });
    expect(answer.status).toBe(201);
    expect(answer.body.market.geoTargetId).toBe(2250);
    expect(answer.body.market.models.map((model: { key: string }) => model.key)).toEqual(["gpt-5"]);
    const project = world.projects().find((p) => p.id === answer.body.market.projectId)!;
    expect(project.primaryUrl).toBe("https://acme.example/fr");
    const ids = { ws: GOLD_PARENT_WORKSPACE_ID, pid: project.id };
    const calls = callShape(await world.sim.calls(), ids);
    expectTagsMadeBeforePublish(calls);
    expect(withoutTagCreates(calls)).toEqual([
      `POST ${PE}/v1/workspaces/{ws}/projects`,
      `PATCH ${PE}/v1/workspaces/{ws}/projects/{pid}`,
      `GET ${PE}/v1/workspaces/{ws}/projects/{pid}/ai_models`,
      `DELETE ${PE}/v1/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v1/workspaces/{ws}/projects/{pid}/publish`,
    ]);
    expect(project.models).toHaveLength(1);
  });

  it("without modelIds copies the models of the brand's oldest market", async () => {
    const answer = await world.call("POST", world.marketsUrl(), { market: "DE", languageCode: "de" });
    expect(answer.status).toBe(201);
    expect(answer.body.market.models.map((model: { key: string }) => model.key)).toEqual([
      "search-gpt",
      "google-ai-overview",
      "perplexity",
    ]);
  });

  it("refuses an existing slice with 409 marketExists before any upstream write", async () => {
    await world.sim.clearCalls();
    const answer = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe("marketExists");
    expect((await world.sim.calls()).filter((call) => call.method !== "GET")).toEqual([]);
  });

  it("two concurrent creates of one slice: exactly one 201, one 409, one upstream project", async () => {
    const before = world.projects().length;
    const body = { market: "GB", languageCode: "en", modelIds: ["search-gpt"] };
    const answers = await Promise.all([
      world.call("POST", world.marketsUrl(), body),
      world.call("POST", world.marketsUrl(), body),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.error).toBe("marketExists");
    expect(world.projects().length).toBe(before + 1);
    expect(world.projects().filter((p) => p.locationId === 2826)).toHaveLength(1);
  });

  it("accepts async: true and generatePrompts (sync path for now) and rejects a non-boolean async", async () => {
    const ok = await world.call("POST", world.marketsUrl(), {
      market: "ES",
      languageCode: "es",
      async: true,
      generatePrompts: false,
    });
    expect(ok.status).toBe(201);
    const bad = await world.call("POST", world.marketsUrl(), {
      market: "IT",
      languageCode: "it",
      async: "yes",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("async must be a boolean");
  });

  it.each([
    [{ market: "ZZ", languageCode: "en" }, "market must be an ISO 3166-1 alpha-2 country code"],
    [{ market: "USA", languageCode: "en" }, undefined],
    [{ market: "NL", languageCode: "xq" }, "languageCode is not a supported language"],
    [{ market: "NL", languageCode: "nl", modelIds: ["no-such-model"] }, "modelIds contains an unknown model"],
    [{ market: "NL", languageCode: "nl", extra: 1 }, undefined],
    [{ market: "NL", languageCode: "nl", modelIds: [] }, undefined],
  ])("rejects %j with 400 and writes nothing", async (body, message) => {
    const before = world.projects().length;
    const answer = await world.call("POST", world.marketsUrl(), body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalidRequest");
    if (message) expect(answer.body.message).toBe(message);
    expect(world.projects().length).toBe(before);
  });

  it("a failed PATCH of the primary URL is not fatal", async () => {
    await world.sim.control("/faults", {
      match: { method: "PATCH", pathPattern: "/projects/" },
      action: { status: 500 },
      times: 1,
    });
    const answer = await world.call("POST", world.marketsUrl(), { market: "NL", languageCode: "nl" });
    expect(answer.status).toBe(201);
    expect(world.projects().find((p) => p.id === answer.body.market.projectId)!.primaryUrl).toBeNull();
  });

  it("a failed publish deletes the project and the reservation and reports 502; a retry succeeds", async () => {
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/publish$" },
      action: { status: 500 },
      times: 1,
    });
    await world.sim.clearCalls();
    const before = world.projects().length;
    const failed = await world.call("POST", world.marketsUrl(), { market: "PL", languageCode: "pl" });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({
      error: "serenityUpstreamError",
      message: "The upstream service failed.",
    });
    const calls = await world.sim.calls();
    expect(calls.at(-2)).toMatchObject({ method: "POST", status: 500 });
    expect(calls.at(-1)).toMatchObject({ method: "DELETE", status: 204 });
    expect(world.projects().length).toBe(before);
    expect((await marketRows(world.brandId)).filter((row) => row.geoTargetId === 2616)).toEqual([]);
    const retried = await world.call("POST", world.marketsUrl(), { market: "PL", languageCode: "pl" });
    expect(retried.status).toBe(201);
  });

  it("a failed project create releases the reservation", async () => {
    // Twice: a single transient failure is followed by create-or-adopt (a look, then one more try).
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: { status: 503 },
      times: 2,
    });
    const failed = await world.call("POST", world.marketsUrl(), { market: "SE", languageCode: "sv" });
    expect(failed.status).toBe(502);
    expect((await marketRows(world.brandId)).filter((row) => row.geoTargetId === 2752)).toEqual([]);
  });

  it("maps upstream 401 and 403 to the generic upstream-authorization message", async () => {
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: { status: 401, body: { detail: "Not authenticated" } },
      times: 1,
    });
    const unauthorized = await world.call("POST", world.marketsUrl(), { market: "SE", languageCode: "sv" });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toMatchObject({
      error: "authenticationRequired",
      message: "Upstream authorization failed",
    });
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: { status: 403, body: { message: "invalid access attempt" } },
      times: 1,
    });
    const forbidden = await world.call("POST", world.marketsUrl(), { market: "SE", languageCode: "sv" });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: "forbidden", message: "Upstream authorization failed" });
    // The upstream details went to the log instead.
    expect(world.t.logs.lines.some((line) => line.includes('"kind":"forbidden"'))).toBe(true);
  });

  it("a revoked upstream token answers 401 with the generic message", async () => {
    const revokedToken = await world.t.token({ sub: "user-revoked", orgs: [world.orgId] });
    await world.sim.control("/tokens/revoke", { token: revokedToken });
    const answer = await world.call(
      "POST",
      world.marketsUrl(),
      { market: "SE", languageCode: "sv" },
      revokedToken,
    );
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBe("Upstream authorization failed");
    expect(answer.raw).not.toContain(revokedToken);
  });
});

describe("create market: workspace modes", () => {
  it("a flat-looking brand whose provisioning is pending or failed → 409 semrushProvisioningIncomplete", async () => {
    for (const provisioningStatus of ["pending", "failed"] as const) {
      const brandId = await world.createBrand({ name: `Pending ${provisioningStatus}` });
      await world.setBrand(brandId, { provisioningStatus });
      const answer = await world.call("POST", world.marketsUrl(brandId), {
        market: "US",
        languageCode: "en",
      });
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe("semrushProvisioningIncomplete");
      expect(await marketRows(brandId)).toEqual([]);
    }
  });

  it("a brand whose sub-workspace is the org's parent → 409 workspaceMisconfigured", async () => {
    const brandId = await world.createBrand({ name: "Misconfigured" });
    await world.setBrand(brandId, { subWorkspaceId: GOLD_PARENT_WORKSPACE_ID, provisioningStatus: "ready" });
    const answer = await world.call("POST", world.marketsUrl(brandId), { market: "US", languageCode: "en" });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe("workspaceMisconfigured");
  });

  it("an org without a parent workspace → 400 naming the missing configuration", async () => {
    const orgId = await world.createOrg(null);
    const brandId = await world.createBrand({ orgId });
    const token = await world.t.token({ orgs: [orgId] });
    const answer = await world.call(
      "POST",
      world.marketsUrl(brandId, orgId),
      { market: "US", languageCode: "en" },
      token,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe("Organization has no Semrush workspace configured");
  });

  it("a sub-workspace brand writes into its sub-workspace", async () => {
    const subWorkspaceId = await world.createSubWorkspace("Acme sub", { projects: 2, prompts: 100 });
    subWorkspaceIds.push(subWorkspaceId);
    const brandId = await world.createBrand({ name: "Sub brand" });
    await world.setBrand(brandId, { subWorkspaceId, provisioningStatus: "ready", status: "active" });
    const answer = await world.call("POST", world.marketsUrl(brandId), {
      market: "US",
      languageCode: "en",
      modelIds: ["search-gpt"],
    });
    expect(answer.status).toBe(201);
    expect(world.projects(subWorkspaceId).map((p) => p.id)).toEqual([answer.body.market.projectId]);
    const [row] = await marketRows(brandId);
    expect(row!.workspaceId).toBe(subWorkspaceId);
  });

  it("a sub-workspace without allocation: the metered 405 → 409 quotaExceeded, nothing left behind", async () => {
    const subWorkspaceId = await world.createSubWorkspace("Empty sub", {});
    subWorkspaceIds.push(subWorkspaceId);
    const brandId = await world.createBrand({ name: "Empty brand" });
    await world.setBrand(brandId, { subWorkspaceId, provisioningStatus: "ready", status: "active" });
    const answer = await world.call("POST", world.marketsUrl(brandId), { market: "US", languageCode: "en" });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe("quotaExceeded");
    expect(world.projects(subWorkspaceId)).toEqual([]);
    expect(await marketRows(brandId)).toEqual([]);
  });
});

describe("createForBrand (the provisioning entry)", () => {
  it("creates a market for a brand and org the caller already holds", async () => {
    const brandId = await world.createBrand({ name: "Provisioned" });
    const brand = await world.t.services.brands.get(
      { sub: "admin", orgIds: [], isAdmin: true, bearer: world.token },
      world.orgId,
      brandId,
    );
    const org = await world.t.services.orgs.getAccessible(
      { sub: "admin", orgIds: [], isAdmin: true, bearer: world.token },
      world.orgId,
    );
    const market = await world.t.services.markets.createForBrand(
      { bearer: world.token, requestId: "req-1" },
      brand,
      org,
      {
        market: "CA",
        languageCode: "fr",
      },
    );
    expect(market).toMatchObject({ geoTargetId: 2124, languageCode: "fr", country: "CA" });
  });
});

describe("slice reservations", () => {
  it("a live reservation blocks the slice (409) and cannot be deleted (409 invalidState)", async () => {
    const brandId = await world.createBrand({ name: "Reserved" });
    const { reserveMarket } = await import("../../../src/db/markets/reserveMarket.ts");
    await reserveMarket(world.t.db.db, {
      brandId,
      geoTargetId: 2840,
      languageCode: "en",
      country: "US",
      workspaceId: GOLD_PARENT_WORKSPACE_ID,
      now: new Date(),
    });
    const created = await world.call("POST", world.marketsUrl(brandId), { market: "US", languageCode: "en" });
    expect(created.body.error).toBe("marketExists");
    const deleted = await world.call("DELETE", `${world.marketsUrl(brandId)}/2840/en`);
    expect(deleted.status).toBe(409);
    expect(deleted.body.error).toBe("invalidState");
    expect((await world.call("GET", world.marketsUrl(brandId))).body.items).toEqual([]);
  });

  it("an abandoned reservation (a crash mid-create) is reclaimed and its orphan project deleted", async () => {
    const brandId = await world.createBrand({ name: "Crashed" });
    // What a process that died after the project create leaves behind.
    const orphan = await fetch(`${world.sim.url}${PE}/v1/workspaces/${GOLD_PARENT_WORKSPACE_ID}/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "orphan",
        type: "ai",
        country_code: "us",
        location_id: 2840,
        language_id: catalogueLanguageId("en"),
      }),
    });
    const orphanId = ((await orphan.json()) as { id: string }).id;
    const { reserveMarket } = await import("../../../src/db/markets/reserveMarket.ts");
    const { recordReservationProject } = await import("../../../src/db/markets/recordReservationProject.ts");
    const longAgo = new Date(Date.now() - 60 * 60_000);
    const row = await reserveMarket(world.t.db.db, {
      brandId,
      geoTargetId: 2840,
      languageCode: "en",
      country: "US",
      workspaceId: GOLD_PARENT_WORKSPACE_ID,
      now: longAgo,
    });
    await recordReservationProject(world.t.db.db, { id: row!.id, projectId: orphanId, now: longAgo });

    const created = await world.call("POST", world.marketsUrl(brandId), { market: "US", languageCode: "en" });
    expect(created.status).toBe(201);
    expect(world.projects().some((p) => p.id === orphanId)).toBe(false);
    expect((await marketRows(brandId)).map((r) => [r.status, r.projectId])).toEqual([
      ["ready", created.body.market.projectId],
    ]);
  });
});
