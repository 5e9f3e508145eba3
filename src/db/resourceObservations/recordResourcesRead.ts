import { sql } from "drizzle-orm";

import type { WorkspaceResources } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import {
  OBSERVATION_COLUMNS,
  observationOf,
  type RawObservation,
  type ResourceObservation,
} from "./observationRow.ts";

/**
 * Records one resources read of `workspaceId` (ADR 0020): one guarded upsert.
 *
 * - **Never backwards.** The row is replaced only when the read is at least as new as what it
 *   holds (`observed_at <=`); an older read (a slow refresh landing after a guard's read) changes
 *   nothing and `undefined` is returned — a lost race, not an error.
 * - **The publish lag.** After a publish, upstream drops `drafted` at once but `used` catches up
 *   later (spec/gateway.md §3, ADR 0001 addendum). When the entry holds a publish into the
 *   workspace (`published_at`, on the database's clock) less than `publishLagMs` before the read
 *   started (the statement's time minus the read's age), usage (`used + drafted`) is
 *   not allowed to fall below what the record held: `used` is raised to the recorded usage minus
 *   the read's `drafted`. A publish only moves units from drafted to used, so the recorded usage —
 *   the guard's read before the section plus the units its writes staged — is what Serenity knows
 *   it published; lowering it could only come from the lag. (A delete inside the window keeps the
 *   entry high until the next read past it: the safe direction, as for deferred releases.)
 */
export async function recordResourcesRead(
  db: DbExecutor,
  read: {
    orgId: string;
    workspaceId: string;
    resources: WorkspaceResources;
    observedAt: Date;
    /**
     * How long before this statement the read started, on the reading process's own clock (one
     * process's interval): laid onto the database's clock to tell whether the read fell inside a
     * publish's window, since `published_at` is stamped on the database's clock.
     */
    readAgeMs: number;
    publishLagMs: number;
    /** The time a test drives by hand; production passes undefined (the database's clock). */
    now: DatabaseTime;
    title?: string;
  },
): Promise<ResourceObservation | undefined> {
  const { projects, prompts } = read.resources;
  const observedAt = read.observedAt.toISOString();
  const lagging = sql`coalesce(r.published_at > ${databaseNowPlus(read.now, -(read.publishLagMs + Math.max(0, read.readAgeMs)))}, false)`;
  const used = (dimension: "projects" | "prompts") => {
    const column = sql.raw(`${dimension}_used`);
    const drafted = sql.raw(`${dimension}_drafted`);
    return sql`case when ${lagging}
      then greatest(excluded.${column}, r.${column} + r.${drafted} - excluded.${drafted})
      else excluded.${column} end`;
  };
  const result = await db.execute<RawObservation>(sql`
    insert into resource_observations as r (
      org_id, workspace_id, projects_used, projects_drafted, projects_total,
      prompts_used, prompts_drafted, prompts_total, title, observed_at
    ) values (
      ${read.orgId}::uuid, ${read.workspaceId}, ${projects.used}, ${projects.drafted}, ${projects.total},
      ${prompts.used}, ${prompts.drafted}, ${prompts.total}, ${read.title ?? null}, ${observedAt}::timestamptz
    )
    on conflict (org_id, workspace_id) do update set
      projects_used = ${used("projects")},
      projects_drafted = excluded.projects_drafted,
      projects_total = excluded.projects_total,
      prompts_used = ${used("prompts")},
      prompts_drafted = excluded.prompts_drafted,
      prompts_total = excluded.prompts_total,
      title = coalesce(excluded.title, r.title),
      observed_at = excluded.observed_at,
      refresh_claimed_until = null
    where r.observed_at <= excluded.observed_at
    returning ${sql.raw(OBSERVATION_COLUMNS)}
  `);
  const [row] = result.rows;
  return row ? observationOf(row) : undefined;
}
