import { type SQL, sql } from "drizzle-orm";

import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";
import { NOT_READ_OBSERVED_AT } from "./observationRow.ts";

/*
 * Writing what `allocation_publishes`, `model_set_changes` and `pool_free_bounds` hold onto the
 * workspace's entry of the resources record as well (the fold, issue 38, docs/decisions/0046).
 * This release writes both places in the same statement and reads the tables only; an entry a
 * write needs before any read of the workspace is made "not read" (NOT_READ_OBSERVED_AT, zeros),
 * which every view skips and the first read replaces.
 */

/** The entry of `orgId`'s workspace `workspaceId`: `org_id, workspace_id`. */
export function workspaceEntry(orgId: string, workspaceId: string): SQL {
  return sql`select ${orgId}::uuid as org_id, ${workspaceId}::text as workspace_id`;
}

/** The entry of `orgId`'s parent workspace (the pool's): `org_id, workspace_id`, none without one. */
export function parentEntry(orgId: string): SQL {
  return sql`select o.id as org_id, o.parent_workspace_id as workspace_id from orgs o
    where o.id = ${orgId}::uuid and o.parent_workspace_id is not null`;
}

/** A column an entry write sets: its value on a new entry, and `set` (alias `r`) on an existing one. */
export interface EntryColumn {
  name: string;
  value: SQL;
  set: SQL;
}

/**
 * Upserts `columns` on the entry `entry` selects (workspaceEntry, parentEntry), making it "not
 * read" when it does not exist; `when` limits it (e.g. to a write the table's statement made).
 */
export function upsertEntry(entry: SQL, columns: readonly EntryColumn[], when: SQL = sql`true`): SQL {
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
    on conflict (org_id, workspace_id) do update set ${sets}`;
}

/**
 * An announcement begins (allocation/announced.ts): the version moves on, one more in flight until
 * it ends or until `holdMs` from now on the database's clock (an end never written: the count
 * starts again from one once the hold is over).
 */
export function announcementBegins(window: { now: DatabaseTime; holdMs: number }): EntryColumn[] {
  const until = databaseNowPlus(window.now, window.holdMs);
  return [
    { name: "version", value: sql`1`, set: sql`r.version + 1` },
    {
      name: "announced",
      value: sql`1`,
      set: sql`case when r.announced_until > ${databaseNowPlus(window.now, 0)} then r.announced + 1 else 1 end`,
    },
    { name: "announced_until", value: until, set: sql`greatest(r.announced_until, ${until})` },
  ];
}

/** An announcement ends: the version moves on, one fewer in flight (`set` of an update, alias-free). */
export const ANNOUNCEMENT_ENDS = sql`version = version + 1, announced = greatest(0, announced - 1)`;
