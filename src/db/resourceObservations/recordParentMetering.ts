import { sql } from "drizzle-orm";

import type { MeteringState } from "../../domain/metering.ts";
import type { DbExecutor } from "../database.ts";

/** What recording a metering read did. */
export type MeteringRecordOutcome =
  /** Written; `previous` is what the entry said before (`unknown` when it had never been read). */
  | { outcome: "recorded"; previous: MeteringState }
  /** A newer read already stands (a lost race): nothing changed. */
  | { outcome: "older" }
  /** The parent has no entry yet: record a resources read of it first. */
  | { outcome: "noEntry" };

/**
 * Records a read of the parent's `ai` metering on its entry of the resources record (spec/allocation.md
 * §13, docs/decisions/0034), in one guarded statement: written only when the read is at least as
 * new as the one the entry holds (`metering_as_of <=`), so an older read never replaces a newer one.
 * Answers what the entry said before (for a flip) — or that there is no entry, or a newer read.
 */
export async function recordParentMetering(
  db: DbExecutor,
  read: { orgId: string; parentWorkspaceId: string; metering: "metered" | "unmetered"; asOf: Date },
): Promise<MeteringRecordOutcome> {
  const asOf = read.asOf.toISOString();
  const result = await db.execute<{ entries: number; previous: string | null; written: number }>(sql`
    with old as (
      select metering, metering_as_of from resource_observations
      where org_id = ${read.orgId}::uuid and workspace_id = ${read.parentWorkspaceId}
      for update
    ), written as (
      update resource_observations r set metering = ${read.metering}, metering_as_of = ${asOf}::timestamptz
      from old
      where r.org_id = ${read.orgId}::uuid and r.workspace_id = ${read.parentWorkspaceId}
        and (old.metering_as_of is null or old.metering_as_of <= ${asOf}::timestamptz)
      returning 1
    )
    select (select count(*) from old)::int as entries,
           (select metering from old) as previous,
           (select count(*) from written)::int as written
  `);
  const row = result.rows[0];
  if (!row || row.entries === 0) return { outcome: "noEntry" };
  if (row.written === 0) return { outcome: "older" };
  const previous = row.previous === "metered" || row.previous === "unmetered" ? row.previous : "unknown";
  return { outcome: "recorded", previous };
}
