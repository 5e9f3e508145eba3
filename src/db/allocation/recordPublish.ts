import { type SQL, sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";

/** What the guarded section's read says a publish can have moved (docs/decisions/0030). */
export interface PublishBasisValues {
  /**
   * When the section's resources read started, on the database's clock: no later than that — the
   * time of the statement that took the section's lease (acquireAllocationLock.ts), which the read
   * follows. Earlier is the safe side: a publish is then chained onto its predecessor's window more
   * often, never less.
   */
  readAt: Date;
  /** The read's `used`. */
  usedBefore: Units;
  /** The read's `drafted` plus the section's staged need: all a publish there can turn into `used`. */
  moved: Units;
  /**
   * The model-set changes the sub-workspace must show for the basis to hold (model_set_changes):
   * another count means a model was added while the section worked its need out, and the publish
   * is recorded without a basis. Absent: not checked (a need worked out under the lock).
   */
  modelChanges?: number;
}

export interface PublishRecord {
  subWorkspaceId: string;
  now: DatabaseTime;
  basis?: PublishBasisValues;
  publishLagMs: number;
}

/**
 * Remembers that a publish is about to be written into `subWorkspaceId` (an upsert that never moves
 * the time backwards, so a slow writer cannot shorten another's lag window), with its basis when it
 * has one (null columns otherwise: a publish made without a guard read). The time is the
 * database's (`now`: only a test passes one), like every other stamp another process judges the
 * age of (docs/decisions/0023).
 *
 * - `used_bound = used_before + moved`, where the basis read may itself have been inside the
 *   previous publish's window, its `used` still missing that publish's units: when the previous
 *   publish is less than `publishLagMs` before the read, the bound is at least the previous bound
 *   plus what this one moved.
 * - `moved_in_window = moved`, plus the previous publish's `moved_in_window` in that same case:
 *   every unit the publishes of one window moved, what a read inside it can at most be missing.
 * - `bound_loose` carries over inside the window (a delete there made the bound loose) and is
 *   cleared when this publish starts a window of its own.
 *
 * When that previous publish had no basis, neither has this one: nothing bounds what the read
 * missed. A basis is written under the sub-workspace's allocation lock (inside the section), so two
 * basis writes of one sub-workspace never race. A guarded section writes it together with its read
 * and staged units (recordSection.ts); this statement alone serves the publishes outside one.
 */
export async function recordPublish(db: DbExecutor, values: PublishRecord): Promise<void> {
  await db.execute(publishUpsert(values));
}

/** The publish's upsert, also a part of the section's one record statement (recordSection.ts). */
export function publishUpsert(values: PublishRecord): SQL {
  const basis = values.basis;
  const lagMs = values.publishLagMs;
  const now = databaseNow(values.now);

  const chained = sql`p.published_at > excluded.basis_read_at - ${lagMs}::double precision * interval '1 millisecond'`;
  const bound = (dimension: "projects" | "prompts") => {
    const column = sql.raw(`${dimension}_used_bound`);
    const moved = basis?.moved[dimension] ?? null;
    return sql`case
      when excluded.${column} is null then null
      when ${chained} then case when p.${column} is null then null
        else greatest(excluded.${column}, p.${column} + ${moved}::integer) end
      else excluded.${column} end`;
  };
  const inWindow = (dimension: "projects" | "prompts") => {
    const column = sql.raw(`${dimension}_moved_in_window`);
    const bounded = sql.raw(`${dimension}_used_bound`);
    return sql`case
      when excluded.${column} is null then null
      when ${chained} then case when p.${bounded} is null then null else excluded.${column} + p.${column} end
      else excluded.${column} end`;
  };
  const sum = (dimension: "projects" | "prompts") =>
    basis ? basis.usedBefore[dimension] + basis.moved[dimension] : null;
  // A basis the model sets moved under is none (checked in the statement, under the section's lock).
  const holds =
    basis?.modelChanges === undefined
      ? sql`true`
      : sql`coalesce((select c.changes from model_set_changes c where c.sub_workspace_id = ${values.subWorkspaceId}), 0) = ${basis.modelChanges}::integer`;
  const ifHolds = (value: number | null) => sql`case when ${holds} then ${value}::integer end`;
  const readAt = basis
    ? sql`case when ${holds} then ${basis.readAt.toISOString()}::timestamptz end`
    : sql`null::timestamptz`;
  return sql`
    insert into allocation_publishes as p (
      sub_workspace_id, published_at, basis_read_at,
      projects_used_bound, prompts_used_bound, projects_moved_in_window, prompts_moved_in_window,
      bound_loose
    ) values (
      ${values.subWorkspaceId}, ${now}, ${readAt},
      ${ifHolds(sum("projects"))}, ${ifHolds(sum("prompts"))},
      ${ifHolds(basis?.moved.projects ?? null)}, ${ifHolds(basis?.moved.prompts ?? null)},
      false
    )
    on conflict (sub_workspace_id) do update set
      published_at = greatest(p.published_at, excluded.published_at),
      basis_read_at = excluded.basis_read_at,
      projects_used_bound = ${bound("projects")},
      prompts_used_bound = ${bound("prompts")},
      projects_moved_in_window = ${inWindow("projects")},
      prompts_moved_in_window = ${inWindow("prompts")},
      bound_loose = coalesce(${chained} and p.bound_loose, false)
  `;
}
