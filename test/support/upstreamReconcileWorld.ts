import { randomUUID } from "node:crypto";

import { and, eq } from "drizzle-orm";

import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import { loadConfig } from "../../src/config/env.ts";
import { allocationLedger, brands, markets, orgs } from "../../src/db/schema.ts";
import type { Units } from "../../src/domain/allocation.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../src/operations/upstreamReconciler.ts";
import { openRuntime, type Runtime } from "../../src/runtime/runtime.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { LogCapture } from "./logCapture.ts";
import { ManualClock } from "./manualClock.ts";
import { catalogueLanguageId, startTestSimulator, type TestSimulator } from "./simulator.ts";

export const TOKEN = "reconcile-upstream-token";
export const PARENT = GOLD_PARENT_WORKSPACE_ID;

/**
 * The upstream reconciler's world: a test database, the real runtime on a ManualClock (its gateway
 * client over real HTTP against the gold simulator, pool 13 / 800, metered), allocation on, and
 * helpers that build upstream leftovers the way the faults of test/reliability leave them — straight on
 * the simulator, with or without the records that would track them.
 */
export interface UpstreamReconcileWorld {
  db: TestDatabase;
  sim: TestSimulator;
  runtime: Runtime;
  clock: ManualClock;
  logs: LogCapture;
  reconciler: UpstreamReconciler;
  orgId: string;
  org: { id: string; parentWorkspaceId: string };
  /** A brand row (status/provisioning as given) and, unless `workspace: false`, a sub-workspace titled with its name. */
  brand(
    name: string,
    options?: {
      totals?: Partial<Units>;
      tracked?: boolean;
      status?: "pending" | "active" | "deleted";
      provisioningStatus?: "pending" | "ready" | "failed" | null;
    },
  ): Promise<{ brandId: string; workspaceId: string }>;
  /** A sub-workspace of the parent titled `title` (no record points at it). */
  subWorkspace(title: string, totals?: Partial<Units>): Promise<string>;
  /** A project named `name` in `workspaceId` (metered: the workspace needs a free project). */
  project(workspaceId: string, name: string): Promise<string>;
  /** A market row tracking `projectId`. */
  market(
    brandId: string,
    workspaceId: string,
    projectId: string | null,
    status?: "creating" | "ready",
  ): Promise<void>;
  projectIds(workspaceId: string): Promise<string[]>;
  totals(workspaceId: string): Promise<Units>;
  parentFree(): Promise<Units>;
  /** Upstream calls that change something, from the simulator's call log. */
  mutatingCalls(): Promise<string[]>;
  ledger(): Promise<(typeof allocationLedger.$inferSelect)[]>;
  close(): Promise<void>;
}

export async function startUpstreamReconcileWorld(): Promise<UpstreamReconcileWorld> {
  const db = await createTestDatabase();
  const sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  const logs = new LogCapture();
  const clock = new ManualClock(new Date());
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const config = loadConfig({
    DATABASE_URL: db.url,
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 9).toString("base64"),
    // The shared budget's real-time pacing is not these tests' subject (ManualClock time).
    SERENITY_UPSTREAM_RATE_PER_SECOND: "0",
  });
  const runtime = await openRuntime(config, createLogger({ level: "debug", destination: logs }), {
    migrate: false,
    clock,
  });
  const database = runtime.database.db;
  const orgId = randomUUID();
  await database.insert(orgs).values({
    id: orgId,
    name: "Reconcile org",
    parentWorkspaceId: PARENT,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  const reconciler = new UpstreamReconciler({
    db: database,
    clock,
    logger: runtime.logger,
    events: runtime.events,
    gateway: runtime.gateway,
    upstream: gatewayAllocationUpstream(runtime.gateway),
    allocation: runtime.services.allocation,
    brandLease: runtime.services.brandLease,
  });

  const subWorkspace = async (title: string, totals: Partial<Units> = {}) => {
    const resources = Object.fromEntries(Object.entries(totals).filter(([, value]) => value !== 0));
    const workspace = await runtime.gateway.users.createSubWorkspace(TOKEN, PARENT, { title, resources });
    await runtime.gateway.users.getStatus(TOKEN, workspace.id);
    return workspace.id;
  };
  const totals = (workspaceId: string) => sim.totals(workspaceId);
  // Every market its own slice: a counter, not a random draw, so two markets of one brand never collide.
  let nextGeoTargetId = 2000;

  return {
    db,
    sim,
    runtime,
    clock,
    logs,
    reconciler,
    orgId,
    org: { id: orgId, parentWorkspaceId: PARENT },
    async brand(name, options = {}) {
      const workspaceId = await subWorkspace(name, options.totals ?? { projects: 1, prompts: 100 });
      const [row] = await database
        .insert(brands)
        .values({
          orgId,
          name,
          status: options.status ?? "active",
          subWorkspaceId: options.tracked === false ? null : workspaceId,
          provisioningStatus: options.provisioningStatus === undefined ? "ready" : options.provisioningStatus,
          createdAt: clock.now(),
          updatedAt: clock.now(),
        })
        .returning({ id: brands.id });
      return { brandId: row!.id, workspaceId };
    },
    subWorkspace,
    async project(workspaceId, name) {
      const project = await runtime.gateway.projects.createProject(TOKEN, workspaceId, {
        name,
        brandNameDisplay: name,
        brandNames: [name],
        domain: "brand.example",
        countryCode: "US",
        locationId: 2840,
        locationName: "United States",
        languageId: catalogueLanguageId("en"),
      });
      return project.id;
    },
    async market(brandId, workspaceId, projectId, status = "ready") {
      await database.insert(markets).values({
        brandId,
        geoTargetId: nextGeoTargetId++,
        languageCode: "en",
        country: "US",
        workspaceId,
        status,
        projectId,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
    },
    async projectIds(workspaceId) {
      return (await sim.dump()).projects
        .filter((project) => project.workspace_id === workspaceId)
        .map((project) => String(project.id));
    },
    totals,
    async parentFree() {
      const resources = await gatewayAllocationUpstream(runtime.gateway).readResources(TOKEN, PARENT);
      return {
        projects: resources.projects.total - resources.projects.used - resources.projects.drafted,
        prompts: resources.prompts.total - resources.prompts.used - resources.prompts.drafted,
      };
    },
    async mutatingCalls() {
      return (
        (await sim.calls())
          // A prompt listing is a POST that reads (`…/aio/prompts/by_tags`).
          .filter(
            (call) =>
              call.method !== "GET" && !call.path.startsWith("/__sim") && !call.path.endsWith("/by_tags"),
          )
          .map((call) => `${call.method} ${call.path}`)
      );
    },
    ledger: () =>
      database
        .select()
        .from(allocationLedger)
        .where(and(eq(allocationLedger.orgId, orgId), eq(allocationLedger.reason, "reconcile"))),
    async close() {
      await runtime.close();
      await sim.close();
      await db.destroy();
    },
  };
}
