import { sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";

/** What the guarded section's read says a publish can have moved (docs/decisions/0030). */
export interface PublishBasisValues {
  /**
   * When the section's resources read started, on the publishing process's monotonic clock: its age
   * (an interval of one process) is laid onto the database's clock inside the statement's
   * transaction, once a connection is held — a wait for one must not make the read look younger.
   */
  readAtMs: number;
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

/**
 * Remembers that a publish is about to be written into `subWorkspaceId` (an upsert that never moves
 * the time backwards, so a slow writer cannot shorten another's lag window), with its basis when it
 * has one
 * (null columns otherwise: a publish made without a guard read). The time is the database's
 * (`now`: only a test passes one), like every other stamp another process judges the age of
 * (docs/decisions/0023); the basis read's time is that minus the read's age.
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
 * missed. Runs under the sub-workspace's allocation lock (inside the section), so two basis writes
 * of one sub-workspace never race.
 */
export async function recordPublish(
  db: DbExecutor,
  values: {
    subWorkspaceId: string;
    now: DatabaseTime;
    basis?: PublishBasisValues;
    publishLagMs: number;
    /** The publishing process's monotonic clock (the basis read's age is taken on it); with a basis. */
    monotonicMs?: () => number;
  },
): Promise<void> {
  const { basis, monotonicMs } = values;
  if (basis && !monotonicMs)
    throw new TypeError("recordPublish: a basis needs the monotonic clock it was read on");
  await db.transaction(async (tx) => {
    const readAgeMs = basis && monotonicMs ? monotonicMs() - basis.readAtMs : 0;
    await tx.execute(publishUpsert(values, readAgeMs));
  });
}

function publishUpsert(
  values: { subWorkspaceId: string; now: DatabaseTime; basis?: PublishBasisValues; publishLagMs: number },
  readAgeMs: number,
) {
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
    ? sql`case when ${holds} then ${now} - ${Math.max(0, Math.round(readAgeMs))}::double precision * interval '1 millisecond' end`
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
