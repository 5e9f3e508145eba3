import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { allocationLedger, credentials, jobs, markets } from "../../../src/db/schema.ts";
import { PROMPT_CATEGORIES } from "../../../src/generation/wire.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { type FakeGeneratorServer, startFakeGeneratorServer } from "../../support/fakeGeneratorServer.ts";
import { DRS_CONTRACT } from "../../support/generationFixtures.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { PE } from "../../support/simulator.ts";

/**
 * The prompt preview (spec/generation.md §8) end to end: the real app, the real gateway client over
 * HTTP against the simulator, the embedded PostgreSQL. The simulator's call log is the witness of
 * "no upstream write, no allocation call": a preview reads the topic catalogue and nothing else.
 */

let world: MarketWorld;
let drs: FakeGeneratorServer | undefined;
const GENERATOR_VARIABLES = [
  "SERENITY_PROMPT_GENERATOR",
  "SERENITY_DRS_URL",
  "SERENITY_GENERATION_TIMEOUT_MS",
  "SERENITY_DYNAMIC_ALLOCATION",
  "SERENITY_GENERATION_RATE_PER_ORG",
] as const;
/** Choosing the generator is an admin's (issue 39, item 6). */
let admin: string;

beforeAll(async () => {
  world = await startMarketWorld();
  admin = await world.t.token({ sub: "operator", admin: true });
});

afterEach(async () => {
  for (const name of GENERATOR_VARIABLES) delete process.env[name];
  await world.sim.control("/faults", undefined, "DELETE");
  await drs?.close();
  drs = undefined;
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

const previewUrl = (
  geoTargetId: number,
  languageCode: string,
  brandId = world.brandId,
  orgId = world.orgId,
) => `${world.marketsUrl(brandId, orgId)}/${geoTargetId}/${languageCode}/prompt-preview`;

/** The simulator's calls as `METHOD path`, the catalogue read's workspace templated. */
async function upstreamCalls(): Promise<string[]> {
  return (await world.sim.calls()).map((call) => `${call.method} ${call.path}`);
}

async function rowCounts() {
  const db = world.t.db.db;
  const count = async (table: typeof jobs | typeof allocationLedger | typeof credentials | typeof markets) =>
    (await db.select({ n: sql<number>`count(*)::int` }).from(table))[0]!.n;
  return {
    jobs: await count(jobs),
    ledger: await count(allocationLedger),
    credentials: await count(credentials),
    markets: await count(markets),
  };
}

describe("POST …/markets/:geoTargetId/:languageCode/prompt-preview", () => {
  it("answers validated French prompts for a market that does not exist yet, reading only the catalogue", async () => {
    const before = await rowCounts();
    const projectsBefore = world.projects().length;
    await world.sim.clearCalls();

    const answer = await world.call("POST", previewUrl(2250, "fr"), { count: 20 });

    expect(answer.status).toBe(200);
    expect(answer.body.generator).toBe("builtin");
    const { prompts, summary } = answer.body;
    expect(summary.verdict).toBe("ship");
    expect(prompts).toHaveLength(20);
    expect(summary.final_count).toBe(20);
    expect(
      summary.hard_validated -
        summary.guardrail_dropped -
        summary.language_rejected -
        summary.quality_downranked,
    ).toBe(summary.final_count);
    for (const prompt of prompts) {
      expect(typeof prompt.text).toBe("string");
      expect(PROMPT_CATEGORIES).toContain(prompt.category);
      expect(["branded", "non-branded"]).toContain(prompt.type);
      expect(typeof prompt.topic).toBe("string");
      // `type` is derived from the text: branded exactly when it names the brand.
      expect(prompt.type === "branded").toBe(/acme/i.test(prompt.text));
    }
    // One upstream call: the topic catalogue of the brand's workspace, for its domain and country.
    expect(await upstreamCalls()).toEqual([
      `GET ${PE}/v1/workspaces/${GOLD_PARENT_WORKSPACE_ID}/brand-topics`,
    ]);
    // Nothing written anywhere: no job record (a job is recorded before it is queued), no ledger entry, no credential, no market.
    expect(await rowCounts()).toEqual(before);
    expect(world.projects()).toHaveLength(projectsBefore);
  });

  it("is deterministic with the builtin generator, and defaults to 50 prompts without a body", async () => {
    const first = await world.call("POST", previewUrl(2840, "en"), { count: 10 });
    const second = await world.call("POST", previewUrl(2840, "en"), { count: 10 });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);

    const bodyless = await world.call("POST", previewUrl(2840, "en"));
    expect(bodyless.status).toBe(200);
    expect(bodyless.body.prompts.length).toBeGreaterThan(10);
    expect(bodyless.body.prompts.length).toBeLessThanOrEqual(50);
  });

  it("makes no allocation call for a sub-workspace brand with dynamic allocation on", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    const subWorkspaceId = await world.createSubWorkspace("Preview brand", { projects: 1, prompts: 10 });
    const brandId = await world.createBrand({ name: "Verdant", domain: "verdant.example" });
    await world.setBrand(brandId, { subWorkspaceId, provisioningStatus: "ready", status: "active" });
    const before = await rowCounts();
    await world.sim.clearCalls();

    const answer = await world.call("POST", previewUrl(2276, "de", brandId), { count: 8 });

    expect(answer.status).toBe(200);
    expect(answer.body.prompts).toHaveLength(8);
    expect(await upstreamCalls()).toEqual([`GET ${PE}/v1/workspaces/${subWorkspaceId}/brand-topics`]);
    expect(await rowCounts()).toEqual(before);
    expect(await world.sim.totals(subWorkspaceId)).toEqual({ projects: 1, prompts: 10 });
  });

  it("a brand without a domain or URL has no catalogue: held `no-seeds`, no upstream call", async () => {
    const brandId = await world.createBrand({ name: "Nameless", domain: null, primaryUrl: null });
    await world.sim.clearCalls();
    const answer = await world.call("POST", previewUrl(2840, "en", brandId), {});
    expect(answer.status).toBe(200);
    expect(answer.body.prompts).toEqual([]);
    expect(answer.body.summary).toMatchObject({ verdict: "held", reason: "no-seeds", final_count: 0 });
    expect(await upstreamCalls()).toEqual([]);
  });

  it("rejects bad input with 400 invalidRequest before any upstream call", async () => {
    await world.sim.clearCalls();
    const cases: [string, unknown][] = [
      [previewUrl(2250, "fr"), { count: 0 }],
      [previewUrl(2250, "fr"), { count: 101 }],
      [previewUrl(2250, "fr"), { count: 2.5 }],
      [previewUrl(2250, "fr"), { count: "5" }],
      [previewUrl(2250, "fr"), { generator: "gpt" }],
      [previewUrl(2250, "fr"), { count: 5, extra: true }],
      [previewUrl(2001, "fr"), { count: 5 }], // names no country
      [previewUrl(2250, "f1"), { count: 5 }],
      [`${world.marketsUrl()}/abc/fr/prompt-preview`, {}],
    ];
    for (const [url, body] of cases) {
      const answer = await world.call("POST", url, body);
      expect(answer.status, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.error).toBe("invalidRequest");
    }
    expect(await upstreamCalls()).toEqual([]);
  });

  it("answers 404 for another org's brand and a missing brand, with no upstream call", async () => {
    const otherParent = await world.sim.addParent({ title: "Other parent" });
    const otherOrg = await world.createOrg(otherParent);
    const otherBrand = await world.createBrand({ orgId: otherOrg, name: "Other" });
    await world.sim.clearCalls();
    for (const url of [
      previewUrl(2250, "fr", otherBrand, otherOrg),
      previewUrl(2250, "fr", otherBrand),
      previewUrl(2250, "fr", "00000000-0000-4000-8000-000000000000"),
    ]) {
      const answer = await world.call("POST", url, { count: 5 });
      expect(answer.status, url).toBe(404);
      expect(answer.body).toMatchObject({ error: "notFound", message: "The resource was not found." });
    }
    expect(await upstreamCalls()).toEqual([]);
  });

  it("a failing catalogue read is the generic 502, never the upstream body", async () => {
    await world.sim.control("/faults", {
      match: { method: "GET", pathPattern: "/brand-topics$" },
      action: { status: 500, body: { message: "catalogue exploded at /v1/workspaces" } },
      times: 1,
    });
    const answer = await world.call("POST", previewUrl(2250, "fr"), { count: 5 });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toBe("serenityUpstreamError");
    expect(answer.raw).not.toContain("exploded");
  });
});

describe("the preview's generator", () => {
  it("a generator chosen without its endpoint is 503 configurationError, before any upstream call", async () => {
    await world.sim.clearCalls();
    const answer = await world.call("POST", previewUrl(2250, "fr"), { generator: "drs" }, admin);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({
      error: "configurationError",
      message: "The service is not configured for this request.",
    });
    expect(await upstreamCalls()).toEqual([]);
  });

  it("drs: the service gets the wire request (seeds, no credential) and its ship is re-validated by our pipeline", async () => {
    drs = await startFakeGeneratorServer(() => ({ status: 200, body: DRS_CONTRACT.response as object }));
    process.env.SERENITY_DRS_URL = drs.url;
    const answer = await world.call("POST", previewUrl(2250, "fr"), { count: 10, generator: "drs" }, admin);

    expect(answer.status).toBe(200);
    expect(answer.body.generator).toBe("drs");
    expect(drs.received).toHaveLength(1);
    const received = drs.received[0]!;
    expect(received.headers.authorization).toBeUndefined();
    expect(received.body).not.toContain(world.token);
    const request = JSON.parse(received.body);
    expect(request).toMatchObject({
      site_id: world.brandId,
      brand: "Acme",
      market_country: "FR",
      language_code: "fr",
      num_prompts: 10,
      catalogue_status: "populated",
    });
    expect(request.catalogue_seeds.length).toBeGreaterThan(0);
    expect(answer.body.summary.final_count).toBe(answer.body.prompts.length);
  });

  it("drs answering 500 is 502 generatorUnavailable; its body never reaches the caller", async () => {
    drs = await startFakeGeneratorServer(() => ({ status: 500, body: { detail: "drs internal trace xyz" } }));
    process.env.SERENITY_PROMPT_GENERATOR = "drs";
    process.env.SERENITY_DRS_URL = drs.url;
    const answer = await world.call("POST", previewUrl(2250, "fr"), { count: 5 });
    expect(answer.status).toBe(502);
    expect(answer.body.error).toBe("generatorUnavailable");
    expect(answer.raw).not.toContain("trace");
    expect(world.t.logs.lines.some((line) => line.includes("prompt preview failed"))).toBe(true);
  });

  it("a generator past its timeout is 504 generationTimeout", async () => {
    drs = await startFakeGeneratorServer(() => "hang");
    process.env.SERENITY_DRS_URL = drs.url;
    process.env.SERENITY_GENERATION_TIMEOUT_MS = "200";
    const answer = await world.call("POST", previewUrl(2250, "fr"), { count: 5, generator: "drs" }, admin);
    expect(answer.status).toBe(504);
    expect(answer.body.error).toBe("generationTimeout");
  });

  it("every preview is a generator call in the metrics and a log line", async () => {
    const calls: string[] = [];
    world.t.events.on("generation.call", ({ generator, outcome }) => calls.push(`${generator}:${outcome}`));
    const answer = await world.call("POST", previewUrl(2840, "en"), { count: 5 });
    expect(answer.status).toBe(200);
    expect(calls).toEqual(["builtin:ship"]);
    const line = world.t.logs.lines
      .map((text) => JSON.parse(text))
      .findLast((entry) => entry.msg === "prompt preview");
    expect(line).toMatchObject({ generator: "builtin", verdict: "ship", prompts: 5, geoTargetId: 2840 });
  });
});

describe("the preview's cost bounds (issue 39, item 6)", () => {
  it("a member may not choose the generator (403) nor ask for more than 50 (400 at /count); an admin may", async () => {
    await world.sim.clearCalls();
    const calls: string[] = [];
    world.t.events.on("generation.call", ({ generator }) => calls.push(generator));
    const chosen = await world.call("POST", previewUrl(2250, "fr"), { count: 5, generator: "builtin" });
    expect([chosen.status, chosen.body.code]).toEqual([403, "forbidden"]);
    const many = await world.call("POST", previewUrl(2250, "fr"), { count: 51 });
    expect([many.status, many.body.code]).toEqual([400, "invalidRequest"]);
    expect(many.body.errors).toEqual([expect.objectContaining({ in: "body", pointer: "/count" })]);
    expect(calls).toEqual([]);
    expect(await upstreamCalls()).toEqual([]);

    const allowed = await world.call(
      "POST",
      previewUrl(2250, "fr"),
      { count: 100, generator: "builtin" },
      admin,
    );
    expect(allowed.status).toBe(200);
    expect(calls).toEqual(["builtin"]);
  });

  it("past the org's generation rate a preview is 429 rateLimited with Retry-After; another org is not held back", async () => {
    process.env.SERENITY_GENERATION_RATE_PER_ORG = "2";
    const orgWithBrand = async (name: string) => {
      const orgId = await world.createOrg(await world.sim.addParent({ title: `${name} parent` }));
      const brandId = await world.createBrand({ orgId, name });
      const member = await world.t.token({ sub: `${name}-user`, orgs: [orgId] });
      return () =>
        world.t.app.inject({
          method: "POST",
          url: previewUrl(2250, "fr", brandId, orgId),
          headers: { authorization: `Bearer ${member}` },
          payload: { count: 5 },
        });
    };
    const preview = await orgWithBrand("Rated");
    expect((await preview()).statusCode).toBe(200);
    expect((await preview()).statusCode).toBe(200);
    await world.sim.clearCalls();
    const refused = await preview();
    expect([refused.statusCode, refused.json().code]).toEqual([429, "rateLimited"]);
    const seconds = Number(refused.headers["retry-after"]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(3600);
    expect(await upstreamCalls()).toEqual([]);
    // Another org counts apart.
    expect((await (await orgWithBrand("Other"))()).statusCode).toBe(200);
  });
});
