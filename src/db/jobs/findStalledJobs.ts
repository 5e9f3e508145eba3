import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { assertQueueSchemaName } from "./queueSchemaName.ts";

export interface StalledJob {
  id: string;
  type: string;
  attempts: number;
  leaseExpiresAt: Date | null;
}

/**
 * IN_PROGRESS records nobody is working on and nothing will deliver: the lease expired more than
 * `stallGraceMs` ago on the database's clock (or there never was one and the record has not moved
 * for that long), and the queue
 * holds no message waiting to be delivered for the job (queued or retrying).
 *
 * A message pg-boss still shows `active` does not count: its worker fetched it and then either
 * claimed the lease (which expired long ago, so that worker is dead or fenced out) or died before
 * claiming (which happens within milliseconds of the fetch). Waiting for pg-boss to expire that
 * message (15 minutes) is what made a SIGKILLed worker's jobs sit for a quarter of an hour.
 */
export async function findStalledJobs(
  db: DbExecutor,
  query: { stallGraceMs: number; now: DatabaseTime; queueSchema: string; queueName: string; limit: number },
): Promise<StalledJob[]> {
  const queueTable = sql.raw(`${assertQueueSchemaName(query.queueSchema)}.job`);
  const before = databaseNowPlus(query.now, -query.stallGraceMs);
  const result = await db.execute<{
    id: string;
    type: string;
    attempts: number;
    lease_expires_at: Date | string | null;
  }>(sql`
    select j.id, j.type, j.attempts, j.lease_expires_at
    from jobs j
    where j.status = 'IN_PROGRESS'
      and (
        (j.lease_expires_at is not null and j.lease_expires_at < ${before})
        or (j.lease_token is null and j.updated_at < ${before})
      )
      and not exists (
        select 1 from ${queueTable} m
        where m.name = ${query.queueName}
          and m.data->>'jobId' = j.id::text
          and m.state < 'active'
      )
    order by j.updated_at
    limit ${query.limit}
  `);
  return result.rows.map((row) => ({
    id: row.id,
    type: row.type,
    attempts: Number(row.attempts),
    leaseExpiresAt: row.lease_expires_at === null ? null : new Date(row.lease_expires_at),
  }));
}
