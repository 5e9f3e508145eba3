import { type SQL, sql } from "drizzle-orm";

import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { NOT_READ_OBSERVED_AT } from "./observationRow.ts";

/*
 * A sub-workspace's last publish and model adds, and the pool's free bounds and lowerings, on the
 * workspace's entry of the resources record (the fold, issue 38, docs/decisions/0046–0049; three
 * tables of their own held them until migration 0027 dropped them). An entry a write needs before any read of the workspace is made "not read"
 * (NOT_READ_OBSERVED_AT, zeros), which every view skips and the first read replaces.
 */

/**
 * The entry whose publish and version a workspace's readers go by, as a row subquery (alias it):
 * the writes that know only the workspace (a lease, a delete, an announcement's end) reach every
 * entry of it, and one workspace has one entry in practice (an upstream id, under the one org that
 * owns its parent); were there two, the one published into last — the longer window, the safe side.
 */
export function publishedEntryOf(workspaceId: SQL | string): SQL {
  return sql`${sql.raw(PUBLISHED_ENTRY[0])}${workspaceId}${sql.raw(PUBLISHED_ENTRY[1])}`;
}

/** publishedEntryOf for a prepared statement's text, the workspace its placeholder (`$1`). */
export function publishedEntryText(placeholder: string): string {
  return `${PUBLISHED_ENTRY[0]}${placeholder}${PUBLISHED_ENTRY[1]}`;
}

const PUBLISHED_ENTRY = [
  "(select * from resource_observations e where e.workspace_id = ",
  " order by e.published_at desc nulls last, e.version desc limit 1)",
] as const;

/** The entry of `orgId`'s workspace `workspaceId`: `org_id, workspace_id`. */
export function workspaceEntry(orgId: string, workspaceId: string): SQL {
  return sql`select ${orgId}::uuid as org_id, ${workspaceId}::text as workspace_id`;
}

/** The entry of `orgId`'s parent workspace (the pool's): `org_id, workspace_id`, none without one. */
export function parentEntry(orgId: string): SQL {
  return sql`select o.id as org_id, o.parent_workspace_id as workspace_id from orgs o
    where o.id = ${orgId}::uuid and o.parent_workspace_id is not null`;
}

/** The entry an announcement is on: a sub-workspace's, or (no `workspaceId`) the org's parent's. */
export interface AnnouncedEntry {
  orgId: string;
  workspaceId?: string;
}

/** The entry `on` names, as workspaceEntry or parentEntry select it. */
export function entryOf(on: AnnouncedEntry): SQL {
  return on.workspaceId === undefined ? parentEntry(on.orgId) : workspaceEntry(on.orgId, on.workspaceId);
}

/** A column an entry write sets: its value on a new entry, and `set` (alias `r`) on an existing one. */
export interface EntryColumn {
  name: string;
  value: SQL;
  set: SQL;
}

/**
 * Upserts `columns` on the entry `entry` selects (workspaceEntry, parentEntry), making it "not
 * read" when it does not exist; `when` (alias `e`: the entry selected) limits it, `onlyIf` (alias
 * `r`) limits the update of an entry that exists (a compare-and-set).
 */
export function upsertEntry(
  entry: SQL,
  columns: readonly EntryColumn[],
  when: SQL = sql`true`,
  onlyIf?: SQL,
): SQL {
  const names = sql.raw(columns.map((column) => column.name).join(", "));
  const values = sql.join(
    columns.map((column) => column.value),
    sql`, `,
  );
  const sets = sql.join(
    columns.map((column) => sql`${sql.raw(column.name)} = ${column.set}`),
    sql`, `,
  );
  return sql`insert into resource_observations as r (
      org_id, workspace_id, projects_used, projects_drafted, projects_total,
      prompts_used, prompts_drafted, prompts_total, observed_at, ${names}
    )
    select e.org_id, e.workspace_id, 0, 0, 0, 0, 0, 0, ${NOT_READ_OBSERVED_AT.toISOString()}::timestamptz, ${values}
    from (${entry}) e where ${when}
    on conflict (org_id, workspace_id) do update set ${sets}${onlyIf ? sql` where ${onlyIf}` : sql``}`;
}

/**
 * The statement's one reading of the clock, as its first CTE: `clock as (…)`. Every time the
 * statement writes is then the same instant (`AT`, `atPlus`).
 */
export function clockCte(now: DatabaseTime): SQL {
  return sql`clock as (select ${databaseNow(now)} as at)`;
}

/** The time `clockCte` read. */
export const AT = sql`(select at from clock)`;

/** `AT + ms` (negative: earlier). */
export function atPlus(ms: number): SQL {
  return sql`(${AT} + ${Math.round(ms)}::double precision * interval '1 millisecond')`;
}
