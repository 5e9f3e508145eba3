import { sql } from "drizzle-orm";

import type { Units, WorkspaceResources } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import {
  AT,
  clockCte,
  type EntryColumn,
  upsertEntry,
  workspaceEntry,
} from "../resourceObservations/foldedEntry.ts";
import { NOT_READ_OBSERVED_AT } from "../resourceObservations/observationRow.ts";
import { publishColumns, type PublishRecord } from "./recordPublish.ts";

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
 * - **The publish** goes onto the entry itself (the fold, docs/decisions/0046, 0048), whatever the
 *   entry's figures do: a newer entry keeps them and still takes the publish.
 *
 * Answers whether the entry's figures were written (`false`: a newer observation stands and
 * nothing was staged).
 */
export async function recordSection(db: DbExecutor, values: SectionRecord): Promise<boolean> {
  const { read } = values;
  const published = values.publishing ? publishColumns(values, AT) : [];
  const observation = read ? readUpsert(values, read, published) : stagedUpsert(values, published);
  const result = await db.execute<{ written: boolean }>(sql`
    with ${clockCte(values.now)},
    observation as (${observation})
    select coalesce((select written from observation), false) as written
  `);
  return result.rows[0]?.written ?? false;
}

/** What a guarded section writes: the publish's fields (its basis only when it publishes) and its own. */
export interface SectionRecord extends PublishRecord {
  /** The section's read and when it started (app clock); absent once written (only staged units are). */
  read?: { resources: WorkspaceResources; at: Date };
  staged: Units;
  stagedAt: Date;
  lockedAt: Date;
  /** The section is about to publish: the publish goes onto the entry in the same statement. */
  publishing: boolean;
}

/**
 * The read (with the staged units on it) as the entry, unless the entry is newer (`gate`); the
 * publish's columns whatever the figures do.
 */
function readUpsert(
  values: SectionRecord,
  read: { resources: WorkspaceResources; at: Date },
  published: readonly EntryColumn[],
) {
  const { staged } = values;
  const anyStaged = staged.projects > 0 || staged.prompts > 0;
  const observedAt = (anyStaged ? values.stagedAt : read.at).toISOString();
  const gate = sql`r.observed_at <= ${observedAt}::timestamptz`;
  const newer = sql`r.observed_at <= ${read.at.toISOString()}::timestamptz`;
  // The entry's publish before this statement (`r`: the row as it stood, whatever this one sets).
  const lagging = sql`coalesce(r.published_at > ${values.lockedAt.toISOString()}::timestamptz
    - ${values.publishLagMs}::double precision * interval '1 millisecond', false)`;
  const columns = (dimension: "projects" | "prompts") => {
    const used = sql.raw(`${dimension}_used`);
    const drafted = sql.raw(`${dimension}_drafted`);
    const total = sql.raw(`${dimension}_total`);
    const figures = read.resources[dimension];
    return sql`
      ${used} = case when not ${gate} or not ${newer} then r.${used}
        when ${lagging} then greatest(${figures.used}::integer, r.${used} + r.${drafted} - ${figures.drafted}::integer)
        else ${figures.used}::integer end,
      ${drafted} = case when not ${gate} then r.${drafted}
        else case when ${newer} then ${figures.drafted}::integer else r.${drafted} end + ${staged[dimension]}::integer end,
      ${total} = case when ${gate} and ${newer} then ${figures.total}::integer else r.${total} end`;
  };
  const { projects, prompts } = read.resources;
  return sql`
    insert into resource_observations as r (
      org_id, workspace_id, projects_used, projects_drafted, projects_total,
      prompts_used, prompts_drafted, prompts_total, observed_at${publishNames(published)}
    ) values (
      ${values.orgId}::uuid, ${values.subWorkspaceId},
      ${projects.used}, ${projects.drafted + staged.projects}, ${projects.total},
      ${prompts.used}, ${prompts.drafted + staged.prompts}, ${prompts.total},
      ${observedAt}::timestamptz${publishValues(published)}
    )
    on conflict (org_id, workspace_id) do update set
      ${columns("projects")},
      ${columns("prompts")},
      observed_at = case when ${gate} then excluded.observed_at else r.observed_at end,
      refresh_claimed_until = case when ${gate} and ${newer} then null else r.refresh_claimed_until end${publishSets(published)}
    ${published.length === 0 ? sql`where ${gate}` : sql``}
    returning observed_at = ${observedAt}::timestamptz as written`;
}

/**
 * Only the staged units, added to an entry that holds a read no newer than them (no such entry:
 * nothing staged); the publish's columns whatever the figures do — on an entry made "not read"
 * when there is none (the read was written, then the entry forgotten meanwhile).
 */
function stagedUpsert(values: SectionRecord, published: readonly EntryColumn[]) {
  const stagedAt = values.stagedAt.toISOString();
  const gate = sql`r.observed_at <= ${stagedAt}::timestamptz
    and r.observed_at > ${NOT_READ_OBSERVED_AT.toISOString()}::timestamptz`;
  const staging = sql`
    projects_drafted = case when ${gate} then r.projects_drafted + ${values.staged.projects}::integer else r.projects_drafted end,
    prompts_drafted = case when ${gate} then r.prompts_drafted + ${values.staged.prompts}::integer else r.prompts_drafted end,
    observed_at = case when ${gate} then ${stagedAt}::timestamptz else r.observed_at end`;
  if (published.length === 0) {
    return sql`update resource_observations as r set ${staging}
      where r.org_id = ${values.orgId}::uuid and r.workspace_id = ${values.subWorkspaceId} and ${gate}
      returning true as written`;
  }
  return sql`
    ${upsertEntry(workspaceEntry(values.orgId, values.subWorkspaceId), published)}, ${staging}
    returning observed_at = ${stagedAt}::timestamptz as written`;
}

const publishNames = (published: readonly EntryColumn[]) =>
  sql.raw(published.map((column) => `, ${column.name}`).join(""));
const publishValues = (published: readonly EntryColumn[]) =>
  sql.join(
    published.map((column) => sql`, ${column.value}`),
    sql``,
  );
const publishSets = (published: readonly EntryColumn[]) =>
  sql.join(
    published.map((column) => sql`, ${sql.raw(column.name)} = ${column.set}`),
    sql``,
  );
