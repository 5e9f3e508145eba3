import { type SQL, sql } from "drizzle-orm";

import type { DbExecutor } from "./database.ts";

/**
 * The time a guarded statement decides expiry with. `undefined` — what production always passes —
 * means PostgreSQL's own clock (`clock_timestamp()`, read inside the statement), so an expiry or a
 * takeover is never decided by comparing one process's wall clock with a timestamp another process
 * wrote. A test that drives time by hand passes its clock's time instead (`Clock.databaseTime`),
 * and then every statement of the same family must get it (docs/decisions/0023).
 */
export type DatabaseTime = Date | undefined;

/**
 * `now` as a SQL expression: the given time, else the database's clock — cut to milliseconds, as a
 * JavaScript Date holds it, so a timestamp read back and compared for equality (an optimistic
 * guard) still matches.
 */
export function databaseNow(now: DatabaseTime): SQL {
  return sql`coalesce(${now?.toISOString() ?? null}::timestamptz, date_trunc('milliseconds', clock_timestamp()))`;
}

/** `now + ms` (negative: `now - ms`) as a SQL expression on the same clock as `databaseNow`. */
export function databaseNowPlus(now: DatabaseTime, ms: number): SQL {
  return sql`(${databaseNow(now)} + ${Math.round(ms)}::double precision * interval '1 millisecond')`;
}

/**
 * The database's current time (or the test's hand-driven `now`), for code that judges the age of
 * rows other processes stamped — a reservation, a sighting — against timestamps written on the
 * same clock (`databaseNow`), never against this process's.
 */
export async function readDatabaseNow(db: DbExecutor, now: DatabaseTime): Promise<Date> {
  if (now) return now;
  const result = await db.execute<{ now: Date | string }>(sql`select ${databaseNow(undefined)} as now`);
  return new Date(result.rows[0]!.now);
}
