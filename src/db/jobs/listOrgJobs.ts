import { type SQL, sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { JobRecordError, JobStatus } from "./jobRow.ts";

/** One job as an org's job list shows it: its first record, and the hop that speaks for it. */
export interface OrgJobRow {
  id: string;
  type: string;
  brandId: string | null;
  createdAt: Date;
  /** Records in the lineage (1 when the job never handed off). */
  hops: number;
  /** The market the job's metadata names (`geoTargetId`, `languageCode`), as stored; null when absent. */
  market: { geoTargetId: unknown; languageCode: unknown } | null;
  effective: {
    status: JobStatus;
    error: JobRecordError | null;
    updatedAt: Date;
    leaseExpiresAt: Date | null;
    leased: boolean;
  };
}

export interface OrgJobQuery {
  orgId: string;
  /** Internal types to keep (absent: all). */
  types?: readonly string[];
  /** On the effective hop's status. */
  status?: JobStatus;
  brandId?: string;
  /** Only this lineage (its root id). */
  rootJobId?: string;
  /** Types whose effective hop is the lineage's last record (the poll follows their hand-offs). */
  followTypes: readonly string[];
  /** Strictly older than this (created_at, id), for the next page. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** `array[$1, $2, …]::text[]` (Drizzle would expand a bound array into a row constructor). */
function textArray(values: readonly string[]): SQL {
  return sql`array[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;
}

type Raw = {
  id: string;
  type: string;
  brand_id: string | null;
  created_at: Date | string;
  hops: number | string;
  geo_target_id: unknown;
  language_code: unknown;
  status: JobStatus;
  error: JobRecordError | null;
  updated_at: Date | string;
  lease_expires_at: Date | string | null;
  leased: boolean;
};

/**
 * An org's jobs, newest first: one row per lineage root (a requeue or chain successor belongs to
 * the job a client was given), with the hop that reports for it — the lineage's last record for
 * the types the poll follows, else the root itself — so a filter on status sees what a poll sees.
 */
export async function listOrgJobs(db: DbExecutor, query: OrgJobQuery): Promise<OrgJobRow[]> {
  const filters: SQL[] = [sql`r.org_id = ${query.orgId}`, sql`r.root_job_id is null`];
  if (query.types) filters.push(sql`r.type = any(${textArray(query.types)})`);
  if (query.brandId) filters.push(sql`r.brand_id = ${query.brandId}`);
  if (query.rootJobId) filters.push(sql`r.id = ${query.rootJobId}`);
  if (query.status) filters.push(sql`e.status = ${query.status}`);
  if (query.after) {
    filters.push(
      sql`(r.created_at, r.id) < (${query.after.createdAt.toISOString()}::timestamptz, ${query.after.id}::uuid)`,
    );
  }
  const result = await db.execute<Raw>(sql`
    select r.id, r.type, r.brand_id, r.created_at,
      (select count(*) from jobs h where h.root_job_id = r.id) + 1 as hops,
      r.metadata -> 'geoTargetId' as geo_target_id, r.metadata -> 'languageCode' as language_code,
      e.status, e.error, e.updated_at, e.lease_expires_at, e.leased
    from jobs r
    cross join lateral (
      -- Two indexed lookups (the root by its key, its successors by root_job_id), not an OR scan;
      -- "offset 0" keeps the planner from pushing the ownership check below into an org-wide
      -- bitmap scan (measured: 3 ms per row on 100,000 records, against 0.05 ms).
      select t.status, t.error, t.updated_at, t.lease_expires_at, t.lease_token is not null as leased
      from (
        select * from jobs where id = r.id
        union all
        select * from jobs where r.type = any(${textArray(query.followTypes)}) and root_job_id = r.id
        offset 0
      ) t
      where t.org_id = r.org_id and t.brand_id is not distinct from r.brand_id
      order by (t.next_job_id is null) desc, t.created_at desc, t.id desc
      limit 1
    ) e
    where ${sql.join(filters, sql` and `)}
    order by r.created_at desc, r.id desc
    limit ${query.limit}
  `);
  return result.rows.map((row) => ({
    id: row.id,
    type: row.type,
    brandId: row.brand_id,
    createdAt: new Date(row.created_at),
    hops: Number(row.hops),
    market:
      row.geo_target_id === null && row.language_code === null
        ? null
        : { geoTargetId: row.geo_target_id, languageCode: row.language_code },
    effective: {
      status: row.status,
      error: row.error,
      updatedAt: new Date(row.updated_at),
      leaseExpiresAt: row.lease_expires_at === null ? null : new Date(row.lease_expires_at),
      leased: row.leased,
    },
  }));
}
