import pg from "pg";

import type { ReadinessReport } from "../api/appDeps.ts";
import { MIGRATIONS_FOLDER } from "../db/migrate.ts";
import { readJournal } from "../db/migrationJournal.ts";
import { type ReadinessReading, readReadiness } from "../db/readReadiness.ts";
import type { Clock } from "../domain/clock.ts";

/**
 * "This process can serve", for the API and the worker alike: the database answers and every
 * committed migration is applied. Never the upstream (its health is `serenity_gateway_reachable`).
 *
 * It never waits behind requests (docs/decisions/0038): the check runs on a connection of its own
 * (a pool of one, separate from the request pool, which may be saturated and queue a caller for
 * SERENITY_DB_ACQUIRE_TIMEOUT_MS), bounded by SERENITY_READINESS_TIMEOUT_MS — below a probe's own
 * timeout, so a slow database reads "not ready" instead of a probe timing out. Answers are shared
 * for READINESS_CACHE_MS and concurrent checks join the one in flight, so a flood of `/readyz`
 * costs one query a second.
 */
export interface Readiness {
  check(): Promise<ReadinessReport>;
  close(): Promise<void>;
}

/** How long one answer serves every probe (and every flood of them). */
export const READINESS_CACHE_MS = 1_000;

export interface ReadinessOptions {
  timeoutMs: number;
  clock: Clock;
  /** How many migrations must be applied (default: this release's committed ones). */
  expectedMigrations?: number;
  /** The query, replaceable in unit tests (default: readReadiness on the readiness connection). */
  read?: () => Promise<ReadinessReading>;
}

function withTimeout<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export function createReadiness(url: string, options: ReadinessOptions): Readiness {
  const expected = options.expectedMigrations ?? readJournal(MIGRATIONS_FOLDER).length;
  const timeoutMs = options.timeoutMs;
  let pool: pg.Pool | undefined;
  const read =
    options.read ??
    (() => {
      if (!pool) {
        pool = new pg.Pool({
          connectionString: url,
          max: 1,
          connectionTimeoutMillis: timeoutMs,
          query_timeout: timeoutMs,
          statement_timeout: timeoutMs,
          idleTimeoutMillis: 60_000,
          application_name: "serenity readiness",
        });
        // An idle connection losing its server must not crash the process; the next check reconnects.
        pool.on("error", () => {});
      }
      return readReadiness(pool);
    });
  let cached: { at: number; report: Promise<ReadinessReport> } | undefined;
  const measure = async (): Promise<ReadinessReport> => {
    const reading = await withTimeout(
      read().catch(() => ({ database: false, appliedMigrations: 0 })),
      timeoutMs,
      { database: false, appliedMigrations: 0 },
    );
    const checks = {
      database: reading.database,
      migrations: reading.database && reading.appliedMigrations >= expected,
    };
    return { ready: checks.database && checks.migrations, checks };
  };
  return {
    check: () => {
      const now = options.clock.now().getTime();
      // An answer in flight, or younger than the cache, is everyone's answer.
      if (!cached || now - cached.at >= READINESS_CACHE_MS) cached = { at: now, report: measure() };
      return cached.report;
    },
    close: async () => {
      await pool?.end();
    },
  };
}
