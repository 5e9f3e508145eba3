import { sql } from "drizzle-orm";

import type { MeteringState } from "../../domain/metering.ts";
import type { DbExecutor } from "../database.ts";
import { NOT_READ_OBSERVED_AT } from "./observationRow.ts";

/** What recording a metering read did. */
export type MeteringRecordOutcome =
  /** Written; `previous` is what the entry said before (`unknown` when it had never been read). */
  | { outcome: "recorded"; previous: MeteringState }
  /** A newer read already stands (a lost race): nothing changed. */
  | { outcome: "older" };

/**
 * Records a read of the parent's `ai` metering on its entry of the resources record (spec/allocation.md
 * §13, docs/decisions/0034), in one guarded statement: written only when the read is at least as
 * new as the one the entry holds (`metering_as_of <=`), so an older read never replaces a newer one.
 * A parent whose resources were never read gets an entry holding only its metering (observed at
 * NOT_READ_OBSERVED_AT: no view shows its zeros, the first resources read replaces them and
 * keeps the metering). Answers what the entry said before, for a flip.
 */
export async function recordParentMetering(
  db: DbExecutor,
  read: { orgId: string; parentWorkspaceId: string; metering: "metered" | "unmetered"; asOf: Date },
): Promise<MeteringRecordOutcome> {
  const asOf = read.asOf.toISOString();
  const result = await db.execute<{ previous: string | null; written: number }>(sql`
    with old as (
      select metering from resource_observations
      where org_id = ${read.orgId}::uuid and workspace_id = ${read.parentWorkspaceId}
      for update
    ), written as (
      insert into resource_observations as r (
        org_id, workspace_id, projects_used, projects_drafted, projects_total,
        prompts_used, prompts_drafted, prompts_total, observed_at, metering, metering_as_of
      ) values (
        ${read.orgId}::uuid, ${read.parentWorkspaceId}, 0, 0, 0, 0, 0, 0,
        ${NOT_READ_OBSERVED_AT.toISOString()}::timestamptz, ${read.metering}, ${asOf}::timestamptz
      )
      on conflict (org_id, workspace_id) do update set
        metering = excluded.metering,
        metering_as_of = excluded.metering_as_of
      where r.metering_as_of is null or r.metering_as_of <= excluded.metering_as_of
      returning 1
    )
    select (select metering from old) as previous, (select count(*) from written)::int as written
  `);
  const row = result.rows[0];
  if (!row || row.written === 0) return { outcome: "older" };
  const previous = row.previous === "metered" || row.previous === "unmetered" ? row.previous : "unknown";
  return { outcome: "recorded", previous };
}
