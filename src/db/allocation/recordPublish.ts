import { sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";

/** What the guarded section's read says a publish can have moved (docs/decisions/0030). */
export interface PublishBasisValues {
  /** When the section's resources read started. */
  readAt: Date;
  /** The read's `used`. */
  usedBefore: Units;
  /** The read's `drafted` plus the section's staged need: all a publish there can turn into `used`. */
  moved: Units;
}

/**
 * Remembers that a publish was written into `subWorkspaceId` at `now` (an upsert that never moves
 * the time backwards, so a slow writer cannot shorten another's lag window), with its basis when it
 * has one (null columns otherwise: a publish made without a guard read).
 *
 * Chaining: the basis read may itself have been inside the previous publish's window, its `used`
 * still missing that publish's units. When the previous publish is less than `publishLagMs` before
 * the read, `used_before` is raised to the previous bound (`used_before + moved`); when that
 * previous publish had no basis, neither has this one — nothing bounds what the read missed.
 */
export async function recordPublish(
  db: DbExecutor,
  values: { subWorkspaceId: string; now: Date; basis?: PublishBasisValues; publishLagMs?: number },
): Promise<void> {
  const basis = values.basis;
  const readAt = basis ? basis.readAt.toISOString() : null;
  const lagMs = values.publishLagMs ?? 0;
  const usedBefore = (dimension: "projects" | "prompts") => {
    const column = sql.raw(`${dimension}_used_before`);
    const moved = sql.raw(`${dimension}_moved`);
    return sql`case
      when excluded.${column} is null then null
      when p.published_at > excluded.basis_read_at - ${lagMs} * interval '1 millisecond'
        then case when p.${column} is null then null
          else greatest(excluded.${column}, p.${column} + p.${moved}) end
      else excluded.${column} end`;
  };
  await db.execute(sql`
    insert into allocation_publishes as p (
      sub_workspace_id, published_at, basis_read_at,
      projects_used_before, prompts_used_before, projects_moved, prompts_moved
    ) values (
      ${values.subWorkspaceId}, ${values.now.toISOString()}::timestamptz, ${readAt}::timestamptz,
      ${basis?.usedBefore.projects ?? null}::integer, ${basis?.usedBefore.prompts ?? null}::integer,
      ${basis?.moved.projects ?? null}::integer, ${basis?.moved.prompts ?? null}::integer
    )
    on conflict (sub_workspace_id) do update set
      published_at = greatest(p.published_at, excluded.published_at),
      basis_read_at = excluded.basis_read_at,
      projects_used_before = ${usedBefore("projects")},
      prompts_used_before = ${usedBefore("prompts")},
      projects_moved = excluded.projects_moved,
      prompts_moved = excluded.prompts_moved
  `);
}
