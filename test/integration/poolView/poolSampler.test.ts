import { randomUUID } from "node:crypto";

import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "../../../src/config/env.ts";
import { markOrgActive } from "../../../src/db/orgs/markOrgActive.ts";
import { insertPoolSample } from "../../../src/db/poolSamples/insertPoolSample.ts";
import { brands, jobs, orgs, poolSamples } from "../../../src/db/schema.ts";
import { type OperatorBearer, operatorBearerFor } from "../../../src/domain/operatorTokens.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/index.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { PoolSampler } from "../../../src/poolView/poolSampler.ts";
import { openRuntime, type Runtime } from "../../../src/runtime/runtime.ts";
import { startWorker } from "../../../src/runtime/startWorker.ts";
import { bearerHash } from "../../../src/simulator/http/requestLimiter.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { LogCapture } from "../../support/logCapture.ts";
import {
  catalogueLanguageId,
  HELD_UNTIL_RELEASED_MS,
  startTestSimulator,
  type TestSimulator,
} from "../../support/simulator.ts";
import { nextTurn, track, waitFor } from "../../support/wait.ts";

/**
 * The pool sampler (spec/allocation.md §8): every org with a pool and brands is read with the most
 * recent live stored credential of that org, and `serenity_allocation_pool_free_ratio` follows
 * the parent's free share; orgs without a live credential are skipped (debug log). The runtime is
 * the real one (`openRuntime`) on a test database, against the gold simulator over real HTTP.
 */

let db: TestDatabase;
let sim: TestSimulator;
let runtime: Runtime;
let client: GatewayClient;
const logs = new LogCapture();
const ADMIN_TOKEN = "simulator-admin-token";

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  const config = loadConfig({
    DATABASE_URL: db.url,
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString("base64"),
    SERENITY_AUTH_SECRET: "pool-sampler-test-secret-0123456789",
    // The shared budget's real-time pacing is not these tests' subject.
    SERENITY_UPSTREAM_RATE_PER_SECOND: "0",
  });
  runtime = await openRuntime(config, createLogger({ level: "debug", destination: logs }), {
    migrate: false,
  });
  client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
  });
});
afterAll(async () => {
  await client?.close();
  await runtime?.close();
  await sim?.close();
  await db?.destroy();
});

/** An org with one carved brand, on the gold pool or (an org is one pool) a pool of its own. */
async function orgWithBrand(name: string, parentWorkspaceId?: string, orgId = randomUUID()): Promise<string> {
  const now = new Date();
  const parent = parentWorkspaceId ?? (await sim.addParent({ title: `${name} parent` }));
  await runtime.database.db
    .insert(orgs)
    .values({ id: orgId, name, parentWorkspaceId: parent, createdAt: now, updatedAt: now });
  const workspace = await client.users.createSubWorkspace(ADMIN_TOKEN, parent, {
    title: `${name}-${orgId}`,
    resources: { projects: 1, prompts: 100 },
  });
  await runtime.database.db.insert(brands).values({
    orgId,
    name: `${name} brand`,
    status: "active",
    subWorkspaceId: workspace.id,
    provisioningStatus: "ready",
    createdAt: now,
    updatedAt: now,
  });
  return orgId;
}

/** A sealed credential of `token`, attached to a job of the org (how a user's token gets stored). */
async function storeCredential(orgId: string, token: string, options: { invalidate?: boolean } = {}) {
  const credentials = runtime.services.jobs.credentials;
  const credentialId = await credentials.seal(`user-of-${orgId}`, token);
  const now = new Date();
  await runtime.database.db.insert(jobs).values({
    id: randomUUID(),
    type: "provisionWorkspace",
    orgId,
    status: "IN_PROGRESS",
    credentialId,
    createdAt: now,
    updatedAt: now,
  });
  if (options.invalidate) await credentials.invalidate(credentialId);
  return credentialId;
}

async function gauge(orgId: string): Promise<Record<string, number>> {
  const metric = await runtime.metrics.registry.getSingleMetric("serenity_allocation_pool_free_ratio")!.get();
  return Object.fromEntries(
    metric.values.filter((value) => value.labels.org === orgId).map((v) => [v.labels.dimension, v.value]),
  );
}

function sampler(operatorBearer?: OperatorBearer) {
  return new PoolSampler({
    db: runtime.database.db,
    clock: runtime.clock,
    logger: runtime.logger,
    credentials: runtime.services.jobs.credentials,
    poolView: runtime.services.poolView,
    operatorBearer,
    idle: runtime.config.worker.idleOrgs,
  });
}

async function parentFreeRatio(): Promise<Record<string, number>> {
  const parent = (await sim.dump()).workspaces.find((w) => w.id === GOLD_PARENT_WORKSPACE_ID)!.resources;
  const ratio = (d: { used: number; drafted: number; total: number }) =>
    (d.total - d.used - d.drafted) / d.total;
  return { projects: ratio(parent.projects), prompts: ratio(parent.prompts) };
}

/**
 * Ages every entry of the resources record by an hour: the sampler only re-reads entries past
 * SERENITY_POOL_VIEW_MAX_AGE_MS (ADR 0020), so a test that wants a pass to read makes them so.
 */
async function ageRecord(): Promise<void> {
  await runtime.database.db.execute(
    sql`update resource_observations set observed_at = observed_at - interval '1 hour'`,
  );
}

/** Resolves after `count` ticks of a `setInterval` of `everyMs`: as many periods as a loop on that cadence. */
function timerTicks(everyMs: number, count: number): Promise<void> {
  return new Promise((resolve) => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
      if (ticks < count) return;
      clearInterval(timer);
      resolve();
    }, everyMs);
  });
}

describe("pool sampler", () => {
  let sampled: string;
  let withoutCredential: string;
  let withInvalidated: string;
  const userToken = `upstream-token-${randomUUID()}`;

  it("samples orgs with a live stored credential and skips the others (debug log)", async () => {
    sampled = await orgWithBrand("sampled", GOLD_PARENT_WORKSPACE_ID);
    withoutCredential = await orgWithBrand("no-credential");
    withInvalidated = await orgWithBrand("invalidated");
    await storeCredential(sampled, userToken);
    await storeCredential(withInvalidated, `old-${userToken}`, { invalidate: true });
    // Someone used the org without a credential lately (a view): an idle org is not sampled at all
    // (docs/decisions/0042, test/integration/poolView/idleOrgBackground.test.ts).
    await markOrgActive(runtime.database.db, { orgId: withoutCredential, now: undefined });
    // An org without brands is not sampled at all.
    await runtime.database.db.insert(orgs).values({
      id: randomUUID(),
      name: "empty",
      parentWorkspaceId: await sim.addParent({ title: "empty parent" }),
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    // Some usage in the parent (a flat project) so the ratio is not trivially 1.
    await client.projects.createProject(ADMIN_TOKEN, GOLD_PARENT_WORKSPACE_ID, {
      name: "flat",
      brandNameDisplay: "Flat",
      brandNames: ["Flat"],
      domain: "flat.example",
      countryCode: "US",
      locationId: 2840,
      locationName: "United States",
      languageId: catalogueLanguageId("en"),
    });
    await sim.clearCalls();

    expect(await sampler().sampleAll()).toEqual({ sampled: 1, skipped: 2, failed: 0 });
    const expected = await parentFreeRatio();
    expect(expected.projects).toBeGreaterThan(0);
    expect(expected.projects).toBeLessThan(1);
    expect(await gauge(sampled)).toEqual(expected);
    expect(await gauge(withoutCredential)).toEqual({});
    expect(await gauge(withInvalidated)).toEqual({});
    // The sampled org's reads only: its parent and its one brand sub-workspace, and the parent's
    // family (the pool view lists children no brand points at, spec/allocation.md §7: none here),
    // and the parent's own metering (spec/allocation.md §13), never read before.
    const calls = (await sim.calls()).map((call) => `${call.method} ${call.path}`);
    expect(calls.filter((call) => call.endsWith("/resources"))).toHaveLength(2);
    expect(calls.filter((call) => call.endsWith("/family"))).toHaveLength(1);
    expect(calls.filter((call) => call.endsWith(`/v1/workspaces/${GOLD_PARENT_WORKSPACE_ID}`))).toHaveLength(
      1,
    );
    expect(calls).toHaveLength(4);
    expect(calls.every((call) => call.startsWith("GET "))).toBe(true);
    const skips = logs.lines.filter((line) => line.includes("pool sampler: no live credential"));
    expect(skips).toHaveLength(2);
    expect(skips.every((line) => JSON.parse(line).level === 20)).toBe(true);
    // The token itself never reaches a log line.
    expect(logs.lines.some((line) => line.includes(userToken))).toBe(false);
  });

  it("reads with the stored token: revoked upstream, the org's sample fails and is reported", async () => {
    // Fresh entries cost nothing: a pass right after the first reads no upstream.
    await sim.clearCalls();
    expect(await sampler().sampleAll()).toEqual({ sampled: 1, skipped: 2, failed: 0 });
    expect(await sim.calls()).toEqual([]);
    await sim.control("/tokens/revoke", { token: userToken });
    await ageRecord();
    expect(await sampler().sampleAll()).toEqual({ sampled: 0, skipped: 2, failed: 1 });
    // A newer credential of the org is preferred over the revoked one.
    const fresh = `fresh-${userToken}`;
    await storeCredential(sampled, fresh);
    await client.projects.createProject(ADMIN_TOKEN, GOLD_PARENT_WORKSPACE_ID, {
      name: "flat 2",
      brandNameDisplay: "Flat",
      brandNames: ["Flat"],
      domain: "flat.example",
      countryCode: "FR",
      locationId: 2250,
      locationName: "France",
      languageId: catalogueLanguageId("en"),
    });
    await ageRecord();
    expect(await sampler().sampleAll()).toEqual({ sampled: 1, skipped: 2, failed: 0 });
    expect(await gauge(sampled)).toEqual(await parentFreeRatio());
  });

  it("with the operator's token (SERENITY_UPSTREAM_TOKEN) it reads every org with it, stored credentials or not", async () => {
    const operatorToken = `operator-${randomUUID()}`;
    await ageRecord();
    expect(await sampler(operatorToken).sampleAll()).toEqual({ sampled: 3, skipped: 0, failed: 0 });
    expect(Object.keys(await gauge(withoutCredential)).sort()).toEqual(["projects", "prompts"]);
    expect(Object.keys(await gauge(withInvalidated)).sort()).toEqual(["projects", "prompts"]);
    // Read with it, not with a member's: revoked upstream, every org's sample fails.
    await sim.control("/tokens/revoke", { token: operatorToken });
    await ageRecord();
    expect(await sampler(operatorToken).sampleAll()).toEqual({ sampled: 0, skipped: 0, failed: 3 });
    expect(logs.lines.some((line) => line.includes(operatorToken))).toBe(false);
  });

  it("with several operator tokens, each org is read with the one its id picks (docs/decisions/0044)", async () => {
    const tokens = [`operator-a-${randomUUID()}`, `operator-b-${randomUUID()}`];
    // One org on each token, whatever the random ids of the others pick.
    const idOn = (token: string) => {
      for (;;) {
        const id = randomUUID();
        if (operatorBearerFor(tokens, id) === token) return id;
      }
    };
    const onA = await orgWithBrand("on-a", undefined, idOn(tokens[0]!));
    const onB = await orgWithBrand("on-b", undefined, idOn(tokens[1]!));
    for (const orgId of [onA, onB]) await markOrgActive(runtime.database.db, { orgId, now: undefined });
    await ageRecord();
    await sim.clearCalls();
    expect(await sampler(tokens).sampleAll()).toEqual({ sampled: 5, skipped: 0, failed: 0 });
    const calls = await sim.calls();
    for (const orgId of [sampled, withoutCredential, withInvalidated, onA, onB]) {
      const [brand] = await runtime.database.db
        .select({ workspace: brands.subWorkspaceId })
        .from(brands)
        .where(eq(brands.orgId, orgId));
      const accounts = new Set(
        calls.filter((call) => call.path.includes(brand!.workspace!)).map((call) => call.account),
      );
      expect(accounts).toEqual(new Set([bearerHash(operatorBearerFor(tokens, orgId)!)]));
    }
  });

  it("startWorker runs it on a timer; stopping the worker waits for the pass in flight, then no pass runs", async () => {
    const before = (await gauge(sampled)).projects;
    // One more parent project: the next pass must move the gauge.
    await client.projects.createProject(ADMIN_TOKEN, GOLD_PARENT_WORKSPACE_ID, {
      name: "flat 3",
      brandNameDisplay: "Flat",
      brandNames: ["Flat"],
      domain: "flat.example",
      countryCode: "DE",
      locationId: 2276,
      locationName: "Germany",
      languageId: catalogueLanguageId("en"),
    });
    await ageRecord();
    const expected = (await parentFreeRatio()).projects;
    expect(expected).toBeLessThan(before!);
    // The timer's first pass reaches the simulator and waits there until the test releases it.
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: "/resources$" },
      action: { delayMs: HELD_UNTIL_RELEASED_MS },
      times: 1,
    });
    const worker = await startWorker(runtime, {
      poolSampleIntervalMs: 50,
      reconcileIntervalMs: 0,
      upstreamReconcileIntervalMs: 0,
      listen: false,
    });
    let stopping: ReturnType<typeof track<void>>;
    try {
      // Polling the timer's effect (its cadence is real time by design); the deadline guards a hang.
      await waitFor(() => sim.held() === 1, { what: "a timer pass's read held by the simulator" });
    } finally {
      stopping = track(worker.stop());
    }
    // The stop waits for the pass in flight, which cannot end while its read is held.
    await nextTurn();
    expect(stopping.settled).toBe(false);
    sim.release();
    await waitFor(() => stopping.settled, { what: "the worker stopped" });
    expect(stopping.error).toBeUndefined();
    // That pass finished (its read released) and moved the gauge.
    expect((await gauge(sampled)).projects).toBe(expected);

    // Stopped: a pass would read now (the record is aged), yet none does for three of the
    // sampler's periods, counted by a timer of the same kind and cadence.
    await ageRecord();
    await sim.clearCalls();
    await timerTicks(50, 3);
    expect(await sim.calls()).toEqual([]);
  });

  it("startWorker's job reconciler bounds the pool history: every org's samples past the retention go, newer ones stay", async () => {
    const orgId = await orgWithBrand("history");
    const dimension = { used: 1, drafted: 0, total: 10, free: 9 };
    const day = 24 * 3_600_000;
    // Taken by the database's clock, as the step judges (the runtime's clock is the system's here).
    const [{ now }] = (await runtime.database.db.execute<{ now: Date }>(sql`select now() as now`)).rows as [
      { now: Date },
    ];
    for (const daysAgo of [8, 1])
      await insertPoolSample(runtime.database.db, {
        orgId,
        projects: dimension,
        prompts: dimension,
        sampledAt: new Date(new Date(now).getTime() - daysAgo * day),
      });
    const kept = async () =>
      (await runtime.database.db.select().from(poolSamples).where(eq(poolSamples.orgId, orgId))).length;
    expect(await kept()).toBe(2);
    const worker = await startWorker(runtime, {
      poolSampleIntervalMs: 0,
      reconcileIntervalMs: 50,
      upstreamReconcileIntervalMs: 0,
      listen: false,
    });
    try {
      // Polling the reconciler's effect (its cadence is real time by design); the deadline guards a hang.
      await waitFor(async () => (await kept()) === 1, { what: "the 8-day-old sample purged" });
    } finally {
      await worker.stop();
    }
    const [left] = await runtime.database.db.select().from(poolSamples).where(eq(poolSamples.orgId, orgId));
    expect(new Date(now).getTime() - left!.sampledAt.getTime()).toBe(day);
  });
});
