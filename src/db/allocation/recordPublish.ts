import { type SQL, sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import type { DatabaseTime } from "../databaseTime.ts";
import {
  AT,
  clockCte,
  type EntryColumn,
  publishedEntryOf,
  upsertEntry,
  workspaceEntry,
} from "../resourceObservations/foldedEntry.ts";

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
   * The version the workspace's entry must hold for the basis to hold: another means a model was
   * added while the section worked its need out, and the publish is recorded without a basis.
   * Absent: not checked (a need worked out under the lock).
   */
  version?: number;
}

export interface PublishRecord {
  orgId: string;
  /** The workspace published into: a sub-workspace, or the parent of a flat brand. */
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
 * and staged units (recordSection.ts); this statement alone serves the publishes outside one. Both
 * write it onto the sub-workspace's entry of the resources record (the fold, docs/decisions/0046,
 * 0048).
 */
export async function recordPublish(db: DbExecutor, values: PublishRecord): Promise<void> {
  await db.execute(sql`
    with ${clockCte(values.now)}
    ${upsertEntry(workspaceEntry(values.orgId, values.subWorkspaceId), publishColumns(values, AT))}
  `);
}

/**
 * The publish's columns on the sub-workspace's entry of the resources record: their values on a
 * new entry, and how they move an existing one (alias `r`) with `excluded` holding the values.
 */
export function publishColumns(values: PublishRecord, now: SQL): EntryColumn[] {
  const basis = values.basis;
  const lagMs = values.publishLagMs;
  const at = (column: string) => sql.raw(`r.${column}`);

  const chained = sql`${at("published_at")} > excluded.basis_read_at - ${lagMs}::double precision * interval '1 millisecond'`;
  const bound = (dimension: "projects" | "prompts") => {
    const column = `${dimension}_used_bound`;
    const moved = basis?.moved[dimension] ?? null;
    return sql`case
      when excluded.${sql.raw(column)} is null then null
      when ${chained} then case when ${at(column)} is null then null
        else greatest(excluded.${sql.raw(column)}, ${at(column)} + ${moved}::integer) end
      else excluded.${sql.raw(column)} end`;
  };
  const inWindow = (dimension: "projects" | "prompts") => {
    const column = `${dimension}_moved_in_window`;
    return sql`case
      when excluded.${sql.raw(column)} is null then null
      when ${chained} then case when ${at(`${dimension}_used_bound`)} is null then null
        else excluded.${sql.raw(column)} + ${at(column)} end
      else excluded.${sql.raw(column)} end`;
  };
  const sum = (dimension: "projects" | "prompts") =>
    basis ? basis.usedBefore[dimension] + basis.moved[dimension] : null;
  // A basis the model sets moved under is none (checked in the statement, under the section's lock).
  const holds =
    basis?.version === undefined
      ? sql`true`
      : sql`coalesce((select v.version from ${publishedEntryOf(values.subWorkspaceId)} v), 0) = ${basis.version}::integer`;
  const ifHolds = (value: number | null) => sql`case when ${holds} then ${value}::integer end`;
  const readAt = basis
    ? sql`case when ${holds} then ${basis.readAt.toISOString()}::timestamptz end`
    : sql`null::timestamptz`;
  return [
    { name: "published_at", value: now, set: sql`greatest(${at("published_at")}, excluded.published_at)` },
    { name: "basis_read_at", value: readAt, set: sql`excluded.basis_read_at` },
    { name: "projects_used_bound", value: ifHolds(sum("projects")), set: bound("projects") },
    { name: "prompts_used_bound", value: ifHolds(sum("prompts")), set: bound("prompts") },
    {
      name: "projects_moved_in_window",
      value: ifHolds(basis?.moved.projects ?? null),
      set: inWindow("projects"),
    },
    {
      name: "prompts_moved_in_window",
      value: ifHolds(basis?.moved.prompts ?? null),
      set: inWindow("prompts"),
    },
    {
      name: "bound_loose",
      value: sql`false`,
      set: sql`coalesce(${chained} and ${at("bound_loose")}, false)`,
    },
  ];
}
