import { sql } from "drizzle-orm";

import { type Dimension, DIMENSIONS } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";

/** How long a bound stays trusted, and the time a test drives by hand (production: undefined). */
export interface PoolFreeBoundWindow {
  ttlMs: number;
  now: DatabaseTime;
}

export interface KnownPoolFree {
  /**
   * Dimension → the pool's free units there are below this (docs/decisions/0033); only bounds
   * younger than the window's TTL, on the database's clock. A dimension absent is not known.
   */
  bounds: Partial<Record<Dimension, number>>;
  /**
   * The version of the parent's entry of the resources record: moved on by every lowering's start
   * and end (0 with no entry); a call quotes the one read before it was sent (recordPoolFreeBound).
   */
  version: number;
  /** Dimensions whose bound is older than `freshMs`: worth reading the parent again. */
  aging: Dimension[];
}

/**
 * What is known of `orgId`'s pool, and the version a call about to be sent must quote: from the
 * parent's entry of the resources record (docs/decisions/0047).
 */
export async function findPoolFreeBounds(
  db: DbExecutor,
  orgId: string,
  window: PoolFreeBoundWindow & { freshMs: number },
): Promise<KnownPoolFree> {
  const trusted = databaseNowPlus(window.now, -window.ttlMs);
  const fresh = databaseNowPlus(window.now, -window.freshMs);
  const result = await db.execute<{
    version: number;
    projects: number | null;
    prompts: number | null;
    projects_aging: boolean;
    prompts_aging: boolean;
  }>(sql`
    select r.version,
      case when r.projects_free_learned_at > ${trusted} then r.projects_free_below end as projects,
      case when r.prompts_free_learned_at > ${trusted} then r.prompts_free_below end as prompts,
      coalesce(r.projects_free_learned_at <= ${fresh}, false) as projects_aging,
      coalesce(r.prompts_free_learned_at <= ${fresh}, false) as prompts_aging
    from resource_observations r
    join orgs o on o.id = r.org_id and o.parent_workspace_id = r.workspace_id
    where r.org_id = ${orgId}::uuid
  `);
  const row = result.rows[0];
  const known: KnownPoolFree = { bounds: {}, version: Number(row?.version ?? 0), aging: [] };
  for (const dimension of DIMENSIONS) {
    const bound = row?.[dimension];
    if (bound == null) continue;
    known.bounds[dimension] = Number(bound);
    if (row![`${dimension}_aging`]) known.aging.push(dimension);
  }
  return known;
}
