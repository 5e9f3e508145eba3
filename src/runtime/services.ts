import type pg from "pg";

import { BrandService } from "../brands/brandService.ts";
import { ephemeralCredentialKey } from "../credentials/credentialKey.ts";
import { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { JobService } from "../jobs/jobService.ts";
import { createPgBossQueue, type JobQueue } from "../jobs/queue.ts";
import { JobRegistry } from "../jobs/registry.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { OrgService } from "../orgs/orgService.ts";

/** The services every entry point (API, worker, CLI) calls. */
export interface Services {
  orgs: OrgService;
  brands: BrandService;
  /** Jobs: submit, poll, reauth; `jobs.registry` is where job handlers are registered. */
  jobs: JobService;
}

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  /** The credential sealing key (runtime: resolveCredentialKey(config)); tests get a per-process key. */
  credentialKey?: Buffer | Promise<Buffer>;
  /** The job queue; defaults to pg-boss (schema `pgboss`) over `db`'s pool, without maintenance. */
  jobQueue?: JobQueue;
}

export function createServices(deps: ServiceDeps): Services {
  const orgs = new OrgService({ db: deps.db, clock: deps.clock });
  const brands = new BrandService({ db: deps.db, clock: deps.clock, orgs });
  const credentials = new CredentialStore({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    key: deps.credentialKey ?? ephemeralCredentialKey(),
  });
  const jobRegistry = new JobRegistry();
  // Job handlers register here (jobRegistry.registerHandler(…)), so API and worker agree on types.
  const jobs = new JobService({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    registry: jobRegistry,
    queue: deps.jobQueue ?? createPgBossQueue({ pool: poolOf(deps.db), logger: deps.logger }),
    credentials,
    orgs,
    brands,
  });
  return { orgs, brands, jobs };
}

/** The pg pool behind a Drizzle handle (Drizzle keeps it as `$client`). */
function poolOf(db: Db): pg.Pool {
  return (db as Db & { $client: pg.Pool }).$client;
}
