import { sql } from "drizzle-orm";

import type { DbExecutor } from "../../src/db/database.ts";

/**
 * The rows `allocation_publishes`, `model_set_changes` and `pool_free_bounds` hold: the fold's
 * third release (docs/decisions/0048) writes none of them, so a test that starts from empty
 * tables expects 0 after anything it ran.
 */
export async function rowsLeftBehind(db: DbExecutor): Promise<number> {
  const result = await db.execute<{ rows: number }>(sql`
    select ((select count(*) from allocation_publishes) + (select count(*) from model_set_changes)
      + (select count(*) from pool_free_bounds))::int as rows`);
  return result.rows[0]!.rows;
}

/**
 * Where the entries of the resources record disagree with `allocation_publishes`,
 * `model_set_changes` and `pool_free_bounds`: what the fold's copying migrations (0024, 0025) must
 * leave `[]`. `now` is the time the announcements' holds are judged at (a test's hand-driven time;
 * else the statement's time on the database's clock).
 *
 * - a publish: the same time, basis, bounds and loose flag on the workspace's entry, and no entry
 *   with a publish the table lacks;
 * - a model add: the entry's version is the table's count of changes, its announcements in flight
 *   and hold the table's;
 * - a pool: the parent's entry holds each dimension's bound and its time, holds back exactly when a
 *   dimension does (an announcement in flight, its hold not over), and its version moved at least
 *   as often as either dimension's.
 */
export async function foldDisagreements(db: DbExecutor, now?: Date): Promise<string[]> {
  // statement_timestamp(): one instant for every comparison of the statement.
  const at = now ? sql`${now.toISOString()}::timestamptz` : sql`statement_timestamp()`;
  const result = await db.execute<{ problem: string }>(sql`
    select 'publish ' || coalesce(p.sub_workspace_id, e.workspace_id) || ': table ' ||
        coalesce(row(p.published_at, p.basis_read_at, p.projects_used_bound, p.prompts_used_bound,
          p.projects_moved_in_window, p.prompts_moved_in_window, p.bound_loose)::text, 'none') ||
        ', entry ' || coalesce(row(e.published_at, e.basis_read_at, e.projects_used_bound,
          e.prompts_used_bound, e.projects_moved_in_window, e.prompts_moved_in_window,
          e.bound_loose)::text, 'none') as problem
    from allocation_publishes p
    full join (select * from resource_observations where published_at is not null) e
      on e.workspace_id = p.sub_workspace_id
    where row(p.published_at, p.basis_read_at, p.projects_used_bound, p.prompts_used_bound,
        p.projects_moved_in_window, p.prompts_moved_in_window, p.bound_loose)
      is distinct from row(e.published_at, e.basis_read_at, e.projects_used_bound, e.prompts_used_bound,
        e.projects_moved_in_window, e.prompts_moved_in_window, e.bound_loose)
    union all
    select 'model adds ' || c.sub_workspace_id || ': table ' || row(c.changes, c.in_flight, c.hold_until)::text ||
      ', entry ' || coalesce(row(e.version, e.announced, e.announced_until)::text, 'none')
    from model_set_changes c
    left join resource_observations e on e.workspace_id = c.sub_workspace_id
    where row(c.changes, c.in_flight, c.hold_until) is distinct from row(e.version, e.announced, e.announced_until)
    union all
    select 'pool ' || f.org_id || ': table ' || f.tables || ', entry ' || coalesce(row(e.version,
        e.projects_free_below, e.projects_free_learned_at, e.prompts_free_below, e.prompts_free_learned_at,
        e.announced, e.announced_until)::text, 'none')
    from (
      select org_id, max(generation) as version,
        coalesce(bool_or(lowerings_in_flight > 0 and lowering_until > ${at}), false) as holding,
        max(free_below) filter (where dimension = 'projects') as projects_free_below,
        max(learned_at) filter (where dimension = 'projects') as projects_free_learned_at,
        max(free_below) filter (where dimension = 'prompts') as prompts_free_below,
        max(learned_at) filter (where dimension = 'prompts') as prompts_free_learned_at,
        string_agg(row(dimension, generation, free_below, learned_at, lowerings_in_flight, lowering_until)::text, ' ') as tables
      from pool_free_bounds group by org_id
    ) f
    join orgs o on o.id = f.org_id
    left join resource_observations e on e.org_id = o.id and e.workspace_id = o.parent_workspace_id
    where e.org_id is null
      or e.version < f.version
      or coalesce(e.announced > 0 and e.announced_until > ${at}, false) <> f.holding
      or row(e.projects_free_below, e.projects_free_learned_at, e.prompts_free_below, e.prompts_free_learned_at)
        is distinct from row(f.projects_free_below, f.projects_free_learned_at, f.prompts_free_below,
          f.prompts_free_learned_at)
  `);
  return result.rows.map((row) => row.problem);
}
