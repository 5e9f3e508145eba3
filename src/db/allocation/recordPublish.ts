import { sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";

/** What the guarded section's read says a publish can have moved (docs/decisions/0030). */
export interface PublishBasisValues {
  /** When the section's resources read started. */
  readAt: Date;
  /** The read's `used` (raised to the last publish's bound when the guard planned from that). */
  usedBefore: Units;
  /** The read's `drafted` plus the section's staged need: all a publish there can turn into `used`. */
  moved: Units;
}

/**
 * Remembers that a publish was written into `subWorkspaceId` at `now` (an upsert that never moves
 * the time backwards, so a slow writer cannot shorten another's lag window), with its basis when it
 * has one (null columns otherwise: a publish made without a guard read).
 *
 * - `used_bound = used_before + moved`, where the basis read may itself have been inside the
 *   previous publish's window, its `used` still missing that publish's units: when the previous
 *   publish is less than `publishLagMs` before the read, `used_before` is raised to the previous
 *   bound first.
 * - `moved_in_window = moved`, plus the previous publish's `moved_in_window` in that same case:
 *   every unit the publishes of one window moved, what a read inside it can at most be missing.
 *
 * When that previous publish had no basis, neither has this one: nothing bounds what the read
 * missed. Runs under the sub-workspace's allocation lock (inside the section), so two basis writes
 * of one sub-workspace never race.
 */
export async function recordPublish(
  db: DbExecutor,
  values: { subWorkspaceId: string; now: Date; basis?: PublishBasisValues; publishLagMs?: number },
): Promise<void> {
  const basis = values.basis;
  const readAt = basis ? basis.readAt.toISOString() : null;
  const lagMs = values.publishLagMs ?? 0;
  const chained = sql`p.published_at > excluded.basis_read_at - ${lagMs} * interval '1 millisecond'`;
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
  await db.execute(sql`
    insert into allocation_publishes as p (
      sub_workspace_id, published_at, basis_read_at,
      projects_used_bound, prompts_used_bound, projects_moved_in_window, prompts_moved_in_window
    ) values (
      ${values.subWorkspaceId}, ${values.now.toISOString()}::timestamptz, ${readAt}::timestamptz,
      ${sum("projects")}::integer, ${sum("prompts")}::integer,
      ${basis?.moved.projects ?? null}::integer, ${basis?.moved.prompts ?? null}::integer
    )
    on conflict (sub_workspace_id) do update set
      published_at = greatest(p.published_at, excluded.published_at),
      basis_read_at = excluded.basis_read_at,
      projects_used_bound = ${bound("projects")},
      prompts_used_bound = ${bound("prompts")},
      projects_moved_in_window = ${inWindow("projects")},
      prompts_moved_in_window = ${inWindow("prompts")}
  `);
}
