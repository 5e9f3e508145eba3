import { sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNowPlus, type DatabaseTime } from "../databaseTime.ts";

export interface LastPublish {
  publishedAt: Date;
  /**
   * Whether the publish is less than the publish-lag window old, decided inside the statement on
   * the database's clock (the clock `published_at` was written on), never on a process's.
   */
  inWindow: boolean;
  /**
   * At least the sub-workspace's real `used` right after this publish, and the units the publishes
   * of its window moved (docs/decisions/0030); absent when the publish had no basis.
   */
  bound?: { used: Units; movedInWindow: Units };
  /** A delete landed in the window since: the bound holds but may be far above `used`. */
  boundLoose: boolean;
}

/** Which publishes count as recent: the window length, and the time a test drives by hand. */
export interface PublishWindow {
  publishLagMs: number;
  now: DatabaseTime;
}

/** A publish's columns as a statement answers them. */
export interface PublishRow extends Record<string, unknown> {
  published_at: Date | string;
  in_window: boolean;
  projects_used_bound: number | null;
  prompts_used_bound: number | null;
  projects_moved_in_window: number | null;
  prompts_moved_in_window: number | null;
  bound_loose: boolean;
}

/**
 * The last publish written into each of `subWorkspaceIds` (absent: none recorded), from their
 * entries of the resources record (docs/decisions/0047).
 */
export async function findLastPublishes(
  db: DbExecutor,
  subWorkspaceIds: readonly string[],
  window: PublishWindow,
): Promise<Map<string, LastPublish>> {
  if (subWorkspaceIds.length === 0) return new Map();
  const ids = sql.join(
    subWorkspaceIds.map((id) => sql`${id}`),
    sql`, `,
  );
  // The entry published into last, per workspace (publishedEntryOf's rule, for many at once).
  const result = await db.execute<PublishRow & { workspace_id: string }>(sql`
    select distinct on (workspace_id) workspace_id, published_at,
      published_at > ${databaseNowPlus(window.now, -window.publishLagMs)} as in_window,
      projects_used_bound, prompts_used_bound, projects_moved_in_window, prompts_moved_in_window,
      bound_loose
    from resource_observations
    where workspace_id in (${ids}) and published_at is not null
    order by workspace_id, published_at desc
  `);
  return new Map(result.rows.map((row) => [row.workspace_id, lastPublishOf(row)]));
}

export function lastPublishOf(row: PublishRow): LastPublish {
  const values = [
    row.projects_used_bound,
    row.prompts_used_bound,
    row.projects_moved_in_window,
    row.prompts_moved_in_window,
  ];
  const bound = values.every((value) => value !== null)
    ? {
        used: { projects: row.projects_used_bound!, prompts: row.prompts_used_bound! },
        movedInWindow: { projects: row.projects_moved_in_window!, prompts: row.prompts_moved_in_window! },
      }
    : undefined;
  return {
    publishedAt: new Date(row.published_at),
    inWindow: row.in_window,
    ...(bound ? { bound } : {}),
    boundLoose: row.bound_loose,
  };
}
