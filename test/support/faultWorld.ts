import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { sql } from "drizzle-orm";
import { expect } from "vitest";

import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { jobs } from "../../src/db/schema.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../src/operations/upstreamReconciler.ts";
import { createServices, type Services } from "../../src/runtime/services.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { type RestartableSimulator, startRestartableSimulator } from "./restartableSimulator.ts";
import { spawnWorker, type WorkerProcess } from "./workerProcess.ts";

export const PARENT = GOLD_PARENT_WORKSPACE_ID;
export const POOL = { projects: 13, prompts: 800 };
export const OPERATOR_TOKEN = "fault-operator-token";

/**
 * The fault harness's world (test/reliability): a test database, the simulator as a real process
 * that can be crashed and restarted from its dump (gold pool 13 / 800, metered), allocation on,
 * the services an API process would use (brands are created the way the API creates them), real
 * `serenity worker` processes, and an in-process upstream reconciler to observe and reconcile with.
 */
export interface FaultWorld {
  db: TestDatabase;
  sim: RestartableSimulator;
  services: Services;
  orgId: string;
  org: { id: string; parentWorkspaceId: string };
  reconciler: UpstreamReconciler;
  spawnWorker(env?: Record<string, string>): WorkerProcess;
  createBrand(
    name: string,
    market?: { market: string; languageCode: string },
  ): Promise<{ brandId: string; jobId: string }>;
  /** Moves every held job lease an hour into the past (only while no worker runs). */
  letLeasesExpire(): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultWorld(settings: Record<string, unknown> = {}): Promise<FaultWorld> {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const events = new EventBus();
  const logger = createLogger({ level: "silent" });
  const credentialKey = randomBytes(32);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "serenity-fault-"));
  const db = await createTestDatabase();
  const sim = await startRestartableSimulator({ seed: "gold", settings: { settleReads: 0, ...settings } });
  const gateway: GatewayClient = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events,
    logger,
    clock: systemClock,
  });
  const services = createServices({ db: db.db, clock: systemClock, events, logger, credentialKey, gateway });
  const admin: Principal = { sub: "admin", orgIds: [], isAdmin: true, bearer: "unused" };
  const orgId = (await services.orgs.create(admin, { name: "Fault org", parentWorkspaceId: PARENT })).id;
  const bearer = await signDevToken("fault-test-secret-long-enough-0123456789", {
    sub: "user-1",
    orgs: [orgId],
  });
  const user: Principal = { sub: "user-1", orgIds: [orgId], isAdmin: false, bearer };
  const reconciler = new UpstreamReconciler({
    db: db.db,
    clock: systemClock,
    logger,
    events,
    gateway,
    upstream: gatewayAllocationUpstream(gateway),
    allocation: services.allocation,
    brandLease: services.brandLease,
  });

  return {
    db,
    sim,
    services,
    orgId,
    org: { id: orgId, parentWorkspaceId: PARENT },
    reconciler,
    spawnWorker: (env = {}) =>
      spawnWorker({
        DATABASE_URL: db.url,
        SEMRUSH_PROJECTS_BASE_URL: sim.url,
        SEMRUSH_USERS_BASE_URL: sim.url,
        SERENITY_CREDENTIAL_KEY: credentialKey.toString("base64"),
        SERENITY_DATA_DIR: dataDir,
        SERENITY_DYNAMIC_ALLOCATION: "true",
        SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "0",
        ...env,
      }),
    async createBrand(name, market = { market: "US", languageCode: "en" }) {
      const outcome = await services.provisioning.createBrand(
        user,
        orgId,
        {
          name,
          domain: `${name.toLowerCase().replace(/\W+/g, "-")}.example`,
          semrushMarket: market,
          async: true,
        },
        { requestId: undefined },
      );
      expect("accepted" in outcome).toBe(true);
      if (!("accepted" in outcome)) throw new Error("not accepted");
      return { brandId: outcome.accepted.brand.id, jobId: outcome.accepted.jobId };
    },
    async letLeasesExpire() {
      await db.db.execute(
        sql`update ${jobs} set lease_expires_at = now() - interval '1 hour' where status = 'IN_PROGRESS' and lease_token is not null`,
      );
      await db.db.execute(
        sql`update pgboss.job set started_on = now() - interval '1 day' where state = 'active'`,
      );
    },
    async close() {
      await gateway.close();
      await sim.close();
      await db.destroy();
    },
  };
}
