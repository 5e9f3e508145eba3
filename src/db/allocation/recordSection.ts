import { sql } from "drizzle-orm";

import type { Units, WorkspaceResources } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { type PublishRecord, publishUpsert } from "./recordPublish.ts";

/**
 * What a guarded section learned and did, written in one statement under its lease (ADR 0020, ADR
 * 0030): its resources read, the units its writes stage, and — when it is about to publish — the
 * publish with its basis. Written before the publish is sent (a publish whose record cannot be
 * written is not sent), else when the section ends.
 *
 * - **The read, never backwards.** The entry takes the read only when it holds nothing newer than
 *   the read's start (`readAt`, app clock). Inside the window of the last recorded publish — the
 *   one before this statement: every part of it sees the same snapshot — the read may lag it, and
 *   usage (`used + drafted`) is not allowed to fall below what the entry held (`used` is raised).
 *   The window is judged from `lockedAt` (the database's time the section's lease was taken, before
 *   its read started): earlier than the read, the safe side.
 * - **The staged units** are added to `drafted` whatever the entry held (a newer entry keeps its
 *   figures and gets them too), dated `stagedAt`: a read lagging behind the section's publish must
 *   not lower them. A unit that failed to stage keeps the entry high until the next read: the safe
 *   direction.
 *
 * Answers whether the entry was written (`false`: a newer observation stands and nothing was staged).
 */
export async function recordSection(
  db: DbExecutor,
  values: {
    orgId: string;
    subWorkspaceId: string;
    /** The section's read and when it started (app clock); absent once written (only staged units are). */
    read?: { resources: WorkspaceResources; at: Date };
    staged: Units;
    stagedAt: Date;
    lockedAt: Date;
    publishLagMs: number;
    publish?: PublishRecord;
  },
): Promise<boolean> {
  const { read } = values;
  const observation = read ? readUpsert(values, read) : stagedUpdate(values);
  const result = await db.execute<{ written: boolean }>(sql`
    with observation as (${observation})${values.publish ? sql`, publish as (${publishUpsert(values.publish)} returning 1)` : sql``}
    select exists (select 1 from observation) as written
  `);
  return result.rows[0]?.written ?? false;
}

interface SectionValues {
  orgId: string;
  subWorkspaceId: string;
  staged: Units;
  stagedAt: Date;
  lockedAt: Date;
  publishLagMs: number;
}

/** The read (with the staged units on it) as the entry, unless the entry is newer. */
function readUpsert(values: SectionValues, read: { resources: WorkspaceResources; at: Date }) {
  const { staged } = values;
  const anyStaged = staged.projects > 0 || staged.prompts > 0;
  const observedAt = (anyStaged ? values.stagedAt : read.at).toISOString();
  const newer = sql`r.observed_at <= ${read.at.toISOString()}::timestamptz`;
  const lagging = sql`exists (
    select 1 from allocation_publishes p
    where p.sub_workspace_id = ${values.subWorkspaceId}
      and p.published_at > ${values.lockedAt.toISOString()}::timestamptz
        - ${values.publishLagMs}::double precision * interval '1 millisecond'
  )`;
  const columns = (dimension: "projects" | "prompts") => {
    const used = sql.raw(`${dimension}_used`);
    const drafted = sql.raw(`${dimension}_drafted`);
    const total = sql.raw(`${dimension}_total`);
    const figures = read.resources[dimension];
    return sql`
      ${used} = case when not ${newer} then r.${used}
        when ${lagging} then greatest(${figures.used}::integer, r.${used} + r.${drafted} - ${figures.drafted}::integer)
        else ${figures.used}::integer end,
      ${drafted} = case when ${newer} then ${figures.drafted}::integer else r.${drafted} end + ${staged[dimension]}::integer,
      ${total} = case when ${newer} then ${figures.total}::integer else r.${total} end`;
  };
  const { projects, prompts } = read.resources;
  return sql`
    insert into resource_observations as r (
      org_id, workspace_id, projects_used, projects_drafted, projects_total,
      prompts_used, prompts_drafted, prompts_total, observed_at
    ) values (
      ${values.orgId}::uuid, ${values.subWorkspaceId},
      ${projects.used}, ${projects.drafted + staged.projects}, ${projects.total},
      ${prompts.used}, ${prompts.drafted + staged.prompts}, ${prompts.total},
      ${observedAt}::timestamptz
    )
    on conflict (org_id, workspace_id) do update set
      ${columns("projects")},
      ${columns("prompts")},
      observed_at = excluded.observed_at,
      refresh_claimed_until = case when ${newer} then null else r.refresh_claimed_until end
    where r.observed_at <= excluded.observed_at
    returning 1`;
}

/** Only the staged units, added to the entry (no entry, or a newer one: nothing changes). */
function stagedUpdate(values: SectionValues) {
  const stagedAt = values.stagedAt.toISOString();
  return sql`
    update resource_observations set
      projects_drafted = projects_drafted + ${values.staged.projects}::integer,
      prompts_drafted = prompts_drafted + ${values.staged.prompts}::integer,
      observed_at = ${stagedAt}::timestamptz
    where org_id = ${values.orgId}::uuid and workspace_id = ${values.subWorkspaceId}
      and observed_at <= ${stagedAt}::timestamptz
    returning 1`;
}
