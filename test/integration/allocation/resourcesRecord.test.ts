import { randomUUID } from "node:crypto";

import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { recordPublish } from "../../../src/db/allocation/recordPublish.ts";
import { listOrgObservations } from "../../../src/db/resourceObservations/listOrgObservations.ts";
import { recordResourcesRead } from "../../../src/db/resourceObservations/recordResourcesRead.ts";
import { recordTransferAnswer } from "../../../src/db/resourceObservations/recordTransferAnswer.ts";
import { brands } from "../../../src/db/schema.ts";
import type { WorkspaceResources } from "../../../src/domain/allocation.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/index.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator, UM } from "../../support/simulator.ts";
import { callRoute, createTestApp, type TestApp } from "../../support/testApp.ts";
import { track, waitFor } from "../../support/wait.ts";

/**
 * The resources record (spec/allocation.md §12, ADR 0020) and the pool view it serves: the real
 * API, the real gateway client over HTTP against the simulator, a real PostgreSQL, time moved by
 * hand. Upstream calls are counted in the simulator's own call log.
 */

const ADMIN_TOKEN = "simulator-admin-token";
const clock = new ManualClock(new Date("2026-05-01T09:00:00.000Z"));
let sim: TestSimulator;
let t: TestApp;
let client: GatewayClient;
let admin: string;
const originalFlag = process.env.SERENITY_DYNAMIC_ALLOCATION;

beforeAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  // The production pacing of the background refresh (reads 250 ms apart, two at once).
  t = await createTestApp({ clock, gateway: { url: sim.url, maxRetries: 0 } });
  admin = await t.token({ sub: "admin", admin: true });
  client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
  });
});
afterAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = originalFlag;
  await client?.close();
  await t?.close();
  await sim?.close();
});

const call = (method: string, url: string, body?: unknown, token = admin) =>
  callRoute(t.app, { method, url, body, token });

/** Upstream calls the simulator logged since the last clear (its control routes left out). */
async function upstreamCalls(): Promise<string[]> {
  return (await sim.calls())
    .filter((entry) => !entry.path.startsWith("/__sim"))
    .map((entry) => `${entry.method} ${entry.path}`);
}

/** An org on a pool of its own with `count` brands, each with an empty sub-workspace upstream. */
async function orgWithBrands(count: number, pool = { projects: 13, prompts: 800 }) {
  const parentWorkspaceId = await sim.addParent({ title: `pool ${randomUUID()}`, ...pool });
  const org = await call("POST", "/v2/orgs", { name: `Org of ${count}`, parentWorkspaceId });
  expect(org.status).toBe(201);
  const orgId = org.body.id as string;
  const subWorkspaceIds: string[] = [];
  for (let index = 0; index < count; index++) {
    const workspace = await client.users.createSubWorkspace(ADMIN_TOKEN, parentWorkspaceId, {
      title: `Brand ${index}`,
    });
    subWorkspaceIds.push(workspace.id);
  }
  const now = clock.now();
  if (count > 0) {
    await t.db.db.insert(brands).values(
      subWorkspaceIds.map((subWorkspaceId, index) => ({
        orgId,
        name: `Brand ${index}`,
        status: "active" as const,
        subWorkspaceId,
        provisioningStatus: "ready" as const,
        createdAt: now,
        updatedAt: now,
      })),
    );
  }
  return { orgId, parentWorkspaceId, subWorkspaceIds, url: `/v2/orgs/${orgId}/serenity/resources` };
}

interface ViewBody {
  pool: { projects: { total: number }; prompts: { total: number; free: number }; asOf: string };
  brands: {
    subWorkspaceId: string;
    prompts: { used: number; drafted: number; total: number; free: number } | null;
    asOf: string | null;
  }[];
}

describe("the pool view answers from the resources record", () => {
  it("at 200 brands, after one warm-up view, views make no upstream call while every entry is fresh", async () => {
    const org = await orgWithBrands(200);
    await sim.clearCalls();
    const warm = await call("GET", org.url);
    expect(warm.status).toBe(200);
    // The warm-up reads each workspace once: the parent, its family, the 200 sub-workspaces.
    const warmCalls = await upstreamCalls();
    expect(warmCalls.filter((entry) => entry.endsWith("/resources"))).toHaveLength(201);
    expect(warmCalls.filter((entry) => entry.endsWith("/family"))).toHaveLength(1);
    expect(warmCalls).toHaveLength(202);

    await sim.clearCalls();
    for (let view = 0; view < 5; view++) {
      clock.advance(5_000); // 25 s in all: still inside the 30 s max age
      const answer = await call("GET", org.url);
      expect(answer.status).toBe(200);
      const body = answer.body as ViewBody;
      expect(body.brands).toHaveLength(200);
      expect(body.brands.every((brand) => brand.asOf === "2026-05-01T09:00:00.000Z")).toBe(true);
    }
    expect(await upstreamCalls()).toEqual([]);
    await t.services.poolView.settled();
    expect(await upstreamCalls()).toEqual([]);
  });

  it("serves an entry past the max age at once with its old asOf, and refreshes it in the background, stalest first and paced", async () => {
    const org = await orgWithBrands(3);
    expect((await call("GET", org.url)).status).toBe(200);
    const warmedAt = clock.now().toISOString();
    // One brand's entry is older than the others: the refresh must read it first.
    const stalest = org.subWorkspaceIds[2]!;
    await t.db.db.execute(
      sql`update resource_observations set observed_at = observed_at - interval '10 seconds'
          where workspace_id = ${stalest}`,
    );
    // The simulator moves the stalest brand's usage; the record does not know yet.
    await sim.control("/quota", { workspaceId: stalest, prompts: { used: 3, drafted: 5, total: 100 } });

    clock.advance(31_000);
    await sim.clearCalls();
    const served = await call("GET", org.url);
    expect(served.status).toBe(200);
    const body = served.body as ViewBody;
    // Answered while the refresh still waits on the clock nobody moved: it never blocked on it.
    expect(body.pool.asOf).toBe(warmedAt);
    const asOf = new Map(body.brands.map((brand) => [brand.subWorkspaceId, brand.asOf]));
    expect(org.subWorkspaceIds.map((id) => asOf.get(id))).toEqual([
      warmedAt,
      warmedAt,
      new Date(Date.parse(warmedAt) - 10_000).toISOString(),
    ]);

    // A second view meanwhile starts no second pass.
    expect((await call("GET", org.url)).status).toBe(200);
    const pass = track(t.services.poolView.settled());
    let paces = 0;
    while (!pass.settled) {
      await waitFor(() => clock.pendingSleeps >= 1 || pass.settled, { what: "the refresh on the clock" });
      if (!pass.settled) {
        clock.advance(250);
        paces += 1;
      }
    }
    // Five calls two at a time, 250 ms apart: the pass waited on the clock between them.
    expect(paces).toBeGreaterThanOrEqual(2);

    const calls = await upstreamCalls();
    expect(calls[0]).toBe(`GET ${UM}/v1/workspaces/${stalest}/resources`);
    expect(calls.filter((entry) => entry.endsWith("/resources"))).toHaveLength(4);
    expect(calls.filter((entry) => entry.endsWith("/family"))).toHaveLength(1);
    expect(calls).toHaveLength(5);
    // By state: every entry is newer now, and the view shows what upstream said.
    const entries = await listOrgObservations(t.db.db, org.orgId);
    expect(entries).toHaveLength(4);
    expect(entries.every((entry) => entry.observedAt.getTime() > Date.parse(warmedAt))).toBe(true);
    const after = (await call("GET", org.url)).body as ViewBody;
    const moved = after.brands.find((brand) => brand.subWorkspaceId === stalest)!;
    expect(Date.parse(moved.asOf!)).toBeGreaterThan(Date.parse(warmedAt));
    expect(moved.prompts).toEqual({ used: 3, drafted: 5, total: 100, free: 92 });
    expect(await upstreamCalls()).toHaveLength(5);
  });

  it("shows a guard's read and a transfer's answer at once: a view right after a write makes no read", async () => {
    const parentWorkspaceId = await sim.addParent({ title: `write pool ${randomUUID()}` });
    const org = await call("POST", "/v2/orgs", { name: "Writes", parentWorkspaceId });
    const orgId = org.body.id as string;
    const url = `/v2/orgs/${orgId}/serenity/resources`;
    const created = await call("POST", `/v2/orgs/${orgId}/brands`, {
      name: "Writer",
      domain: "writer.example",
      semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
    });
    expect(created.status).toBe(201);
    const brandId = created.body.id as string;
    const subWorkspaceId = (await t.db.db.select().from(brands).where(eq(brands.id, brandId)))[0]!
      .subWorkspaceId!;
    expect((await call("GET", url)).status).toBe(200);

    // 150 prompts: the guard reads (the record learns it), tops up 100 → 200 (the transfer's
    // answer moves the brand's total and the pool's), stages them and publishes.
    const bulk = await call("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`, {
      items: Array.from({ length: 150 }, (_, i) => ({
        text: `write ${i}`,
        geoTargetId: 2840,
        languageCode: "en",
      })),
    });
    expect(bulk.status).toBe(201);
    await sim.clearCalls();
    const view = (await call("GET", url)).body as ViewBody;
    expect(await upstreamCalls()).toEqual([]);

    const truth = (await sim.dump()).workspaces;
    const sub = truth.find((workspace) => workspace.id === subWorkspaceId)!.resources;
    const parent = truth.find((workspace) => workspace.id === parentWorkspaceId)!.resources;
    const brand = view.brands.find((entry) => entry.subWorkspaceId === subWorkspaceId)!;
    expect(sub.prompts.total).toBe(200);
    expect(brand.prompts!.total).toBe(200);
    expect(brand.prompts!.used + brand.prompts!.drafted).toBe(sub.prompts.used + sub.prompts.drafted);
    expect(brand.prompts!.free).toBe(50);
    expect(view.pool.prompts.total).toBe(parent.prompts.total);
    expect(view.pool.projects.total).toBe(parent.projects.total);
  });

  it("a read lagging behind a publish does not lower the usage Serenity published", async () => {
    const previous = process.env.SERENITY_POOL_VIEW_MAX_AGE_MS;
    process.env.SERENITY_POOL_VIEW_MAX_AGE_MS = "5000";
    try {
      const parentWorkspaceId = await sim.addParent({ title: `lag pool ${randomUUID()}` });
      const org = await call("POST", "/v2/orgs", { name: "Lag", parentWorkspaceId });
      const orgId = org.body.id as string;
      const url = `/v2/orgs/${orgId}/serenity/resources`;
      const created = await call("POST", `/v2/orgs/${orgId}/brands`, {
        name: "Lagger",
        domain: "lagger.example",
        semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
      });
      const brandId = created.body.id as string;
      const subWorkspaceId = (await t.db.db.select().from(brands).where(eq(brands.id, brandId)))[0]!
        .subWorkspaceId!;
      expect((await call("GET", url)).status).toBe(200);

      // From the next publish on, one resources read still shows `used` without what it published.
      await sim.control("/settings", { usedLagReads: 1 });
      const bulk = await call("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`, {
        items: Array.from({ length: 150 }, (_, i) => ({
          text: `lag ${i}`,
          geoTargetId: 2840,
          languageCode: "en",
        })),
      });
      expect(bulk.status).toBe(201);
      const truth = (await sim.dump()).workspaces.find((w) => w.id === subWorkspaceId)!.resources;
      expect(truth.prompts).toMatchObject({ used: 150, drafted: 0 });

      // Past the (shortened) max age, inside the 30 s publish lag: the background refresh reads
      // the lagging `used`.
      clock.advance(6_000);
      await sim.clearCalls();
      expect((await call("GET", url)).status).toBe(200);
      const pass = track(t.services.poolView.settled());
      while (!pass.settled) {
        await waitFor(() => clock.pendingSleeps >= 1 || pass.settled, { what: "the refresh on the clock" });
        if (!pass.settled) clock.advance(250);
      }
      expect(await upstreamCalls()).toContain(`GET ${UM}/v1/workspaces/${subWorkspaceId}/resources`);
      const lagSpent = (await sim.dump()).workspaces.find((w) => w.id === subWorkspaceId)!;
      expect(lagSpent.resources.prompts.used).toBe(150);

      const view = (await call("GET", url)).body as ViewBody;
      const brand = view.brands.find((entry) => entry.subWorkspaceId === subWorkspaceId)!;
      expect(Date.parse(brand.asOf!)).toBeGreaterThan(Date.parse(view.pool.asOf) - 6_000); // refreshed
      expect(brand.prompts!.used + brand.prompts!.drafted).toBeGreaterThanOrEqual(150);
      expect(brand.prompts!.free).toBe(50);
    } finally {
      if (previous === undefined) delete process.env.SERENITY_POOL_VIEW_MAX_AGE_MS;
      else process.env.SERENITY_POOL_VIEW_MAX_AGE_MS = previous;
      await sim.control("/settings", { usedLagReads: 0 });
    }
  });
});

describe("the record's writes", () => {
  const usage = (used: number, drafted: number, total: number): WorkspaceResources => ({
    projects: { used: 1, drafted: 0, total: 2 },
    prompts: { used, drafted, total },
  });

  it("an older observation never replaces a newer one (a read, or a transfer's answer)", async () => {
    const { orgId, subWorkspaceIds } = await orgWithBrands(1);
    const workspaceId = subWorkspaceIds[0]!;
    const newer = new Date("2026-05-02T10:00:10.000Z");
    const older = new Date("2026-05-02T10:00:05.000Z");
    const base = { orgId, workspaceId, publishLagMs: 30_000, readAgeMs: 0 };
    expect(
      await recordResourcesRead(t.db.db, {
        ...base,
        resources: usage(40, 0, 300),
        observedAt: newer,
        now: newer,
      }),
    ).toBeDefined();
    expect(
      await recordResourcesRead(t.db.db, {
        ...base,
        resources: usage(10, 0, 100),
        observedAt: older,
        now: older,
      }),
    ).toBeUndefined();
    expect(
      await recordTransferAnswer(t.db.db, {
        orgId,
        subWorkspaceId: workspaceId,
        planned: usage(10, 0, 100),
        targets: { prompts: 500 },
        observedAt: older,
      }),
    ).toBe(false);
    const [entry] = (await listOrgObservations(t.db.db, orgId)).filter(
      (row) => row.workspaceId === workspaceId,
    );
    expect(entry!.resources.prompts).toEqual({ used: 40, drafted: 0, total: 300 });
    expect(entry!.observedAt).toEqual(newer);
  });

  it("inside the publish lag a read cannot lower the recorded usage; past it, it can", async () => {
    const { orgId, subWorkspaceIds } = await orgWithBrands(1);
    const workspaceId = subWorkspaceIds[0]!;
    const at = (seconds: number) => new Date(Date.parse("2026-05-03T10:00:00.000Z") + seconds * 1000);
    const base = { orgId, workspaceId, publishLagMs: 30_000, readAgeMs: 0 };
    // Before the publish: 20 used, 130 staged.
    await recordResourcesRead(t.db.db, {
      ...base,
      resources: usage(20, 130, 200),
      observedAt: at(0),
      now: at(0),
    });
    await recordPublish(t.db.db, { orgId, subWorkspaceId: workspaceId, now: at(1), publishLagMs: 30_000 });
    // A lagging read 5 s later: drafted is gone, used has not caught up.
    const lagging = await recordResourcesRead(t.db.db, {
      ...base,
      resources: usage(20, 0, 200),
      observedAt: at(5),
      now: at(5),
    });
    expect(lagging!.resources.prompts).toEqual({ used: 150, drafted: 0, total: 200 });
    // Past the lag window a read is taken as it is (a delete may really have lowered usage).
    const caughtUp = await recordResourcesRead(t.db.db, {
      ...base,
      resources: usage(90, 0, 200),
      observedAt: at(40),
      now: at(40),
    });
    expect(caughtUp!.resources.prompts).toEqual({ used: 90, drafted: 0, total: 200 });
  });
});
