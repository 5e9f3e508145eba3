import { randomBytes } from "node:crypto";

import { sql } from "drizzle-orm";
import { expect } from "vitest";

import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import type { Principal } from "../../src/auth/principal.ts";
import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import type { Database, Db } from "../../src/db/database.ts";
import { allocationLocks, brandLeases, jobs } from "../../src/db/schema.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger, type Logger } from "../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../src/operations/upstreamReconciler.ts";
import { createServices, type Services } from "../../src/runtime/services.ts";

/**
 * What an API process holds, built in the test's own process on a given database and simulator:
 * the gateway client (real HTTP), the services, and an upstream reconciler to observe and
 * reconcile with (as `serenity worker` builds it); plus what the harness's worlds do with them
 * (an org and a user creating brands the way the API does, the environment of a `serenity worker`
 * sharing them). The fault and worker-crash worlds, and the tests that run their own database
 * (test/reliability/postgresRestart.test.ts), share it.
 *
 * Allocation (SERENITY_DYNAMIC_ALLOCATION, read per use from this process's environment) is turned
 * on unless told otherwise, as the metered harness's `serenity` processes run: the reconciler's
 * releases act instead of answering `disabled`.
 */
export interface ApiProcessSide {
  gateway: GatewayClient;
  services: Services;
  reconciler: UpstreamReconciler;
  events: EventBus;
  logger: Logger;
  credentialKey: Buffer;
  /** The environment a `serenity worker` needs to share this side's database, simulator and key. */
  workerEnv(dataDir: string): Record<string, string>;
  /** An org on `parentWorkspaceId` and a user of it, who creates brands as the API does. */
  orgWithUser(name: string, parentWorkspaceId: string): Promise<OrgUser>;
}

export interface OrgUser {
  orgId: string;
  /** An asynchronous brand create with a market (US/en unless given), as the API does it. */
  createBrand(
    name: string,
    market?: { market: string; languageCode: string },
  ): Promise<{ brandId: string; jobId: string }>;
}

export function apiProcessSide(
  database: { db: Db; url: string },
  simulatorUrl: string,
  options: { dynamicAllocation?: boolean } = {},
): ApiProcessSide {
  if (options.dynamicAllocation ?? true) process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const { db } = database;
  const events = new EventBus();
  const logger = createLogger({ level: "silent" });
  const credentialKey = randomBytes(32);
  const gateway = createGatewayClient({
    projectsBaseUrl: simulatorUrl,
    usersBaseUrl: simulatorUrl,
    events,
    logger,
    clock: systemClock,
  });
  const services = createServices({ db, clock: systemClock, events, logger, credentialKey, gateway });
  const reconciler = new UpstreamReconciler({
    db,
    clock: systemClock,
    logger,
    events,
    gateway,
    upstream: gatewayAllocationUpstream(gateway),
    allocation: services.allocation,
    brandLease: services.brandLease,
  });
  return {
    gateway,
    services,
    reconciler,
    events,
    logger,
    credentialKey,
    workerEnv: (dataDir) => ({
      DATABASE_URL: database.url,
      SEMRUSH_PROJECTS_BASE_URL: simulatorUrl,
      SEMRUSH_USERS_BASE_URL: simulatorUrl,
      SERENITY_CREDENTIAL_KEY: credentialKey.toString("base64"),
      SERENITY_DATA_DIR: dataDir,
    }),
    async orgWithUser(name, parentWorkspaceId) {
      // As openRuntime does at boot: an enqueue never starts the queue.
      await services.jobs.queue.start();
      const admin: Principal = { sub: "admin", orgIds: [], isAdmin: true, bearer: "unused" };
      const orgId = (await services.orgs.create(admin, { name, parentWorkspaceId })).id;
      const bearer = await signDevToken("harness-test-secret-long-enough-0123456789", {
        sub: "user-1",
        orgs: [orgId],
      });
      const user: Principal = { sub: "user-1", orgIds: [orgId], isAdmin: false, bearer };
      return {
        orgId,
        async createBrand(brandName, market = { market: "US", languageCode: "en" }) {
          const outcome = await services.brandLifecycle.createBrand(
            user,
            orgId,
            {
              name: brandName,
              domain: `${brandName.toLowerCase().replace(/\W+/g, "-")}.example`,
              semrushMarket: market,
              async: true,
            },
            { requestId: undefined },
          );
          expect("accepted" in outcome).toBe(true);
          if (!("accepted" in outcome)) throw new Error("not accepted");
          return { brandId: outcome.accepted.brand.id, jobId: outcome.accepted.jobId };
        },
      };
    },
  };
}

/**
 * Time passing for dead workers' claims, by UPDATE instead of sleeping: every held job lease, every
 * active pg-boss message's start, and every brand lease and allocation lock (30 s TTLs a
 * redelivered job would otherwise sit out in real time) move into the past. Only while no worker
 * runs, so every claim it moves belongs to a dead process.
 */
export async function letLeasesExpire(database: Pick<Database, "db">): Promise<void> {
  await database.db.execute(
    sql`update ${jobs} set lease_expires_at = now() - interval '1 hour' where status = 'IN_PROGRESS' and lease_token is not null`,
  );
  await letLocksLapse(database);
  await database.db.execute(
    sql`update pgboss.job set started_on = now() - interval '1 day' where state = 'active'`,
  );
}

/**
 * The brand leases and allocation locks dead workers held lapse now instead of after their TTL:
 * only while no process that could hold one runs.
 */
export async function letLocksLapse(database: Pick<Database, "db">): Promise<void> {
  await database.db.execute(sql`update ${brandLeases} set expires_at = now() - interval '1 hour'`);
  await database.db.execute(sql`update ${allocationLocks} set expires_at = now() - interval '1 hour'`);
}
