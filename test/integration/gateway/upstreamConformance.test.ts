import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createLogger } from "../../../src/observability/logger.ts";
import { runAudit } from "../../../src/operations/audit.ts";
import { runSweep } from "../../../src/operations/sweep.ts";
import { CLIENT_OPERATIONS } from "../../support/clientOperations.ts";
import { type ConformanceWorld, startConformanceWorld } from "../../support/conformanceWorld.ts";
import {
  checkExchange,
  checkExchanges,
  type ConformanceReport,
  describeViolation,
  type Exchange,
} from "../../support/exchangeConformance.ts";
import { PublishedApi } from "../../support/publishedApi.ts";
import { PE, UM } from "../../support/simulator.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * Serenity against Semrush's published API (spec/gateway.md §8). A realistic workload — the README
 * walk-through (a brand with a US/en market, ten prompts, the lists, a preview, a French market
 * with generated prompts), an asynchronous brand, a model change, a market delete, a prompt
 * delete, a deactivation, the sweep, the audit and the upstream reconciler, the upstream-health
 * probe, and the client operations no workflow uses yet — runs through the real gateway client
 * against the simulator, behind a proxy that records every exchange. Each exchange is then
 * validated against test/fixtures/semrush/*.openapi.json (path template after the gateway prefix,
 * bearer, parameters, request body, declared status, content type, response body), with the live
 * facts of test/support/liveFacts.ts as the only departures, and in a strict mode: every field
 * either side sends is declared by the document or named by a live fact. A failure names the
 * operation, the side and the field.
 *
 * Adding an upstream operation (issues 36 and 37 will): the client method, its simulator route, a
 * row in test/support/clientOperations.ts, and — until a workflow below reaches it — one call in
 * "operations no workflow uses yet". A live fact the documents miss goes into liveFacts.ts with
 * the README row it comes from; nothing else is a departure.
 */

const api = new PublishedApi();

let world: ConformanceWorld;
let report: ConformanceReport;
let checkpointDir: string;

/** The workload; each step asserts only what it needs to go on (its subject is the wire). */
async function runWorkload(w: ConformanceWorld): Promise<void> {
  const org = `/v2/orgs/${w.orgId}`;
  const expectStatus = (answer: { status: number; body: unknown }, status: number) =>
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);

  // README 1: a brand with a US / English market (sub-workspace, settle, top-up, project, models).
  const brand = await w.http("POST", `${org}/brands`, {
    name: "Lumiere",
    domain: "lumiere.example",
    semrushMarket: { market: "US", languageCode: "en" },
  });
  expectStatus(brand, 201);
  const lumiere = `${org}/brands/${brand.body.id as string}`;

  // README 2–4: ten prompts, the list, the market, the pool.
  const topics = [
    "dry skin",
    "oily skin",
    "sensitive skin",
    "winter",
    "summer",
    "men",
    "teenagers",
    "over 50",
    "eczema",
    "night",
  ];
  const written = await w.http("POST", `${lumiere}/serenity/prompts`, {
    items: topics.map((topic) => ({
      text: `What is the best moisturiser for ${topic}?`,
      geoTargetId: 2840,
      languageCode: "en",
    })),
  });
  expect(written.status).toBeLessThan(300);
  const listed = await w.http(
    "GET",
    `${lumiere}/serenity/prompts?geoTargetId=2840&languageCode=en&includeDrafts=true`,
  );
  expectStatus(listed, 200);
  expectStatus(await w.http("GET", `${lumiere}/serenity/markets`), 200);
  expectStatus(await w.http("GET", `${org}/serenity/resources`), 200);
  expectStatus(await w.http("GET", "/v2/serenity/models"), 200);
  expectStatus(await w.http("GET", "/v2/serenity/languages"), 200);

  // README 5–7: the French preview, then the French market with generated prompts.
  expectStatus(await w.http("POST", `${lumiere}/serenity/markets/2250/fr/prompt-preview`, { count: 5 }), 200);
  const french = await w.http("POST", `${lumiere}/serenity/markets`, {
    market: "FR",
    languageCode: "fr",
    generatePrompts: true,
  });
  expectStatus(french, 201);
  const generation = await w.jobDone(
    `${lumiere}/serenity/markets/generation/jobs/${french.body.promptGeneration.jobId as string}`,
  );
  expect(generation.status).toBe("COMPLETED");

  // More to try: an asynchronous brand, provisioned off the request path.
  const verdant = await w.http("POST", `${org}/brands`, {
    name: "Verdant",
    domain: "verdant.example",
    semrushMarket: { market: "FR", languageCode: "fr" },
    async: true,
  });
  expectStatus(verdant, 202);
  const provisioned = await w.jobDone(
    `${org}/brands/${verdant.body.id as string}/serenity/jobs/${verdant.body.jobId as string}`,
  );
  expect(provisioned.status).toBe("COMPLETED");

  // A model change (assignments deleted and added), a prompt delete, a market delete.
  expectStatus(
    await w.http("PUT", `${lumiere}/serenity/markets/2840/en/models`, { modelIds: ["perplexity", "gpt-5"] }),
    200,
  );
  const prompt = (listed.body.items as { id: string }[])[0]!;
  expectStatus(
    await w.http("DELETE", `${lumiere}/serenity/prompts`, {
      geoTargetId: 2840,
      languageCode: "en",
      ids: [prompt.id],
    }),
    204,
  );
  const frenchProjectId = french.body.market.projectId as string;
  expectStatus(await w.http("DELETE", `${lumiere}/serenity/markets/2250/fr`), 204);

  // Issue 37: the brand's identity, propagated to its market (project brand names, benchmarks
  // created, CI competitors, brand URLs), then changed (a benchmark updated and one deleted, a URL's
  // kind changed and one deleted).
  const identity = await w.http("PATCH", lumiere, {
    aliases: ["Lumiere Paris"],
    competitors: [
      { name: "Glowco", domain: "glowco.example", aliases: ["Glow Co"] },
      { name: "Dermis", domain: "dermis.example" },
    ],
    urls: [
      { url: "https://lumiere.example/", kind: "owned" },
      { url: "https://social.example/lumiere", kind: "social" },
    ],
  });
  expectStatus(identity, 200);
  expect((await w.jobDone(identity.body.job.location)).status).toBe("COMPLETED");
  const changed = await w.http("PATCH", lumiere, {
    aliases: ["Lumiere Paris", "Lumi"],
    competitors: [{ name: "Glowco", domain: "glowco.example", aliases: ["Glow Company"] }],
    urls: [{ url: "https://lumiere.example/", kind: "earned" }],
  });
  expectStatus(changed, 200);
  expect((await w.jobDone(changed.body.job.location)).status).toBe("COMPLETED");

  // Deactivation: the brand's projects go, its sub-workspace is emptied and released.
  expectStatus(await w.http("POST", `${org}/brands/${verdant.body.id as string}/serenity/deactivate`), 200);

  // The operator tools and the reconciler, with the org user's bearer as the operator's.
  const logger = createLogger({ level: "silent" });
  const sweep = await runSweep(
    {
      db: w.t.db.db,
      clock: { now: () => new Date(), sleep: async () => {} },
      logger,
      allocation: w.t.services.allocation,
    },
    { bearer: w.token, checkpointFile: path.join(checkpointDir, "sweep.json"), rateLimitMs: 0 },
  );
  expect(sweep.unexpectedErrors).toBe(0);
  const orgRef = { id: w.orgId, parentWorkspaceId: w.parentId };
  const audit = await runAudit(
    {
      db: w.t.db.db,
      logger,
      poolView: w.t.services.poolView,
      orphans: {
        observe: (o, bearer) => w.reconciler.observe(o, bearer),
        prompts: async (bearer, workspaceId, projectId) =>
          (await w.gateway.projects.listPrompts(bearer, workspaceId, projectId, { limit: 1, draft: true }))
            .total,
      },
    },
    { bearer: w.token, now: () => new Date() },
  );
  expect(audit.orgs.length).toBeGreaterThan(0);
  await w.reconciler.reconcileOrg(orgRef, w.token, { graceMs: 0 });

  // The upstream-health probe, with the bearer it is given.
  expect(await w.gateway.reachable(w.token)).toBe(true);

  // Operations no workflow uses yet (each is in CLIENT_OPERATIONS; see the header).
  await w.gateway.users.getWorkspace(w.token, w.parentId);
  const markets = await w.http("GET", `${lumiere}/serenity/markets`);
  const us = (markets.body.items as { projectId: string }[])[0]!;
  const lumiereWorkspace = (await w.http("GET", lumiere)).body.subWorkspaceId as string;
  const [tag] = await w.gateway.projects.listTags(w.token, lumiereWorkspace, us.projectId);
  const [kept] = (
    await w.gateway.projects.listPrompts(w.token, lumiereWorkspace, us.projectId, { draft: true, limit: 1 })
  ).items;
  await w.gateway.projects.setPromptTags(w.token, lumiereWorkspace, us.projectId, [
    { promptId: kept!.id, tagIds: [tag!.id], replace: false },
  ]);
  // Issue 36's operations: the list's search and sort, an edit in place, a rename, a tag moved,
  // renamed and deleted, the init status.
  const at = { ws: lumiereWorkspace, pid: us.projectId };
  const searched = await w.gateway.projects.listPrompts(w.token, at.ws, at.pid, {
    draft: true,
    search: "MOISTURISER",
    sortField: "updated_at",
    sortDir: "desc",
    limit: 5,
  });
  expect(searched.total).toBeGreaterThan(0);
  await w.gateway.projects.patchPrompt(w.token, at.ws, at.pid, kept!.id, {
    text: `${kept!.text} (edited)`,
    metadata: { updatedAt: new Date().toISOString(), updatedBy: "user-1" },
  });
  const renamed = await w.gateway.projects.renamePrompt(
    w.token,
    at.ws,
    at.pid,
    kept!.id,
    `${kept!.text} (renamed)`,
  );
  expect(renamed).toMatchObject({ id: kept!.id, updated: true });
  const [parent, child] = await w.gateway.projects.createTags(w.token, at.ws, at.pid, {
    names: ["conformance a", "conformance b"],
  });
  const moved = await w.gateway.projects.patchTag(w.token, at.ws, at.pid, child!.id, {
    name: "conformance b2",
    parentId: parent!.id,
  });
  expect(moved).toMatchObject({ name: "conformance b2", parentId: parent!.id });
  await w.gateway.projects.deleteTags(w.token, at.ws, at.pid, { ids: [parent!.id], cascade: true });
  expect(await w.gateway.projects.getInitStatus(w.token, at.ws, at.pid)).toBe(true);
  const scratch = await w.gateway.users.createSubWorkspace(w.token, w.parentId, {
    title: "conformance scratch",
  });
  await waitFor(async () => (await w.gateway.users.getStatus(w.token, scratch.id)) === "created", {
    what: "the scratch sub-workspace settled",
  });
  await w.gateway.users.renameWorkspace(w.token, scratch.id, "conformance scratch renamed");
  await w.gateway.users.deleteWorkspace(w.token, scratch.id);

  // Answers the live facts cover: a project gone (404 text/plain), a revoked bearer (401).
  await expect(
    w.gateway.projects.getProject(w.token, lumiereWorkspace, frenchProjectId),
  ).rejects.toMatchObject({
    kind: "gone",
  });
  await w.sim.control("/tokens/revoke", { token: "revoked-conformance-token" });
  await expect(w.gateway.projects.listLanguages("revoked-conformance-token")).rejects.toMatchObject({
    kind: "unauthorized",
  });
}

beforeAll(async () => {
  checkpointDir = await mkdtemp(path.join(os.tmpdir(), "serenity-conformance-"));
  world = await startConformanceWorld();
  await runWorkload(world);
  report = checkExchanges(api, world.proxy.exchanges);
  const tally = `${report.exchanges} exchanges over ${report.operations} operations, ${report.failing} not conforming`;
  process.stdout.write(`upstream conformance: ${tally}\n`);
}, 240_000);

afterAll(async () => {
  await world?.close();
  await rm(checkpointDir, { recursive: true, force: true });
});

describe("every upstream exchange of a realistic workload conforms to Semrush's published API", () => {
  it("validates each exchange (request and answer, strict) with only the named live facts as departures", () => {
    expect(report.exchanges).toBeGreaterThan(100);
    expect(report.distinct, `${report.failing} of ${report.exchanges} exchanges do not conform`).toEqual([]);
  });

  it("reaches every operation the client can call, each answered 2xx by the simulator at least once", () => {
    const client = world.gateway as unknown as Record<
      "users" | "projects" | "benchmarks",
      Record<string, unknown>
    >;
    const methods = (["users", "projects", "benchmarks"] as const).flatMap((side) =>
      Object.keys(client[side]).map((name) => `${side}.${name}`),
    );
    expect(
      methods.filter((name) => !(name in CLIENT_OPERATIONS)),
      "client methods without a row",
    ).toEqual([]);
    const unreached: string[] = [];
    for (const [name, row] of Object.entries(CLIENT_OPERATIONS)) {
      const operation = api.byTemplate(row.gateway, row.method, row.template);
      expect(operation, `${name}: ${row.method} ${row.template} is not in the documents`).toBeDefined();
      const seen = report.byOperation.get(`${row.gateway} ${operation!.label}`);
      if (!seen || seen.succeeded === 0) unreached.push(`${name} (${operation!.label})`);
    }
    expect(unreached, "client operations the workload never reached with a 2xx answer").toEqual([]);
  });

  it("accepts the workload's own error answers only through the live facts that describe them", () => {
    expect([...report.factsUsed]).toEqual(
      expect.arrayContaining(["projectNotFound404", "unauthenticated401"]),
    );
  });
});

describe("the check fails naming the operation and the field", () => {
  const base: Exchange = {
    method: "POST",
    path: `${PE}/v2/workspaces/5e6f0a1d-60d0-4c3b-9a7e-000000000013/projects/0b8c6a3e-1f2d-4c5b-8a9e-7d6f5e4c3b2a/ai_models`,
    query: [],
    requestHeaders: { authorization: "Bearer t", "content-type": "application/json" },
    requestBody: JSON.stringify({ model_id: "7e372c8f-d9a8-4255-a049-d4cd60772f20" }),
    status: 201,
    responseHeaders: { "content-type": "application/json; charset=utf-8" },
    responseBody: JSON.stringify({
      id: "a1",
      model: {
        id: "7e372c8f-d9a8-4255-a049-d4cd60772f20",
        key: "gpt-5",
        name: "ChatGPT (No Search)",
        icon: "openai",
      },
      prompts_count: 0,
    }),
  };
  const violations = (exchange: Exchange) => checkExchange(api, exchange).violations.map(describeViolation);

  it("accepts a conforming exchange", () => {
    expect(violations(base)).toEqual([]);
  });

  it("a client request of the wrong shape: a catalogue id sent as a number", () => {
    expect(violations({ ...base, requestBody: JSON.stringify({ model_id: 2 }) })).toEqual([
      "POST /v2/workspaces/{id}/projects/{project_id}/ai_models (aio-project-create-model): request model_id must be string",
    ]);
  });

  it("a client request without its bearer", () => {
    expect(violations({ ...base, requestHeaders: { "content-type": "application/json" } })).toEqual([
      "POST /v2/workspaces/{id}/projects/{project_id}/ai_models (aio-project-create-model): request Authorization carries no bearer (every operation needs one)",
    ]);
  });

  it("a simulator answer with a field the document does not declare (strict mode)", () => {
    const answer = { ...JSON.parse(base.responseBody), keyword_count: 3 };
    expect(violations({ ...base, responseBody: JSON.stringify(answer) })).toEqual([
      "POST /v2/workspaces/{id}/projects/{project_id}/ai_models (aio-project-create-model): response keyword_count is not declared by the document (strict mode) and no live fact names it",
    ]);
  });

  it("a simulator answer with a status neither the document nor a live fact allows", () => {
    const [violation] = violations({
      ...base,
      status: 409,
      responseHeaders: { "content-type": "application/json" },
      responseBody: '{"message":"model already added"}',
    });
    expect(violation).toMatch(/aio-project-create-model\): response status 409 is not declared/);
  });

  it("a project read view carrying top-level fields live never sends", () => {
    const exchange: Exchange = {
      ...base,
      method: "GET",
      path: `${PE}/v1/workspaces/ws/projects/p1`,
      query: [
        ["draft", "true"],
        ["type", "ai"],
      ],
      requestHeaders: { authorization: "Bearer t" },
      requestBody: "",
      status: 200,
      responseBody: JSON.stringify({
        id: "p1",
        name: "Lumiere US en",
        country_code: "us",
        settings: { ai: { country_code: "us" } },
      }),
    };
    expect(violations(exchange)).toEqual([
      "GET /v1/workspaces/{id}/projects/{project_id} (projects-get-project): response country_code is not declared by the document (strict mode) and no live fact names it",
      "GET /v1/workspaces/{id}/projects/{project_id} (projects-get-project): response settings.ai.country_code is not declared by the document (strict mode) and no live fact names it",
      "GET /v1/workspaces/{id}/projects/{project_id} (projects-get-project): response settings.ai.language.id is not a live catalogue id (live fact projectLanguageIsIso)",
    ]);
  });

  it("a request outside the documents", () => {
    expect(violations({ ...base, path: `${UM}/v9/nothing` })[0]).toMatch(
      /POST \/enterprise\/users\/api\/v9\/nothing: request path matches no um operation/,
    );
  });
});
