/**
 * What the fleet benchmark reads from PostgreSQL itself, on one connection of its own, every
 * statement marked `/* fleet-bench *\/` so pg_stat_statements tells its own load apart: table sizes
 * and row counts, statement counts by source, and when each background pass last visited each org.
 */
import pg from "pg";

const MARK = "/* fleet-bench */";

export interface TableStat {
  table: string;
  bytes: number;
  rows: number;
}

export interface StatementStat {
  query: string;
  calls: number;
  totalMs: number;
}

/** The sources a statement is counted under, matched on its text in this order. */
const SOURCES: [string, RegExp][] = [
  ["bench probes", /fleet-bench/],
  ["API rate limiter", /\bapi_rate_limits\b/],
  ["upstream budget", /\bupstream_budget_/],
  ["resources record", /\bresource_observations\b/],
  ["idempotency keys", /\bidempotency_keys\b/],
  [
    "passes (reconciler, sampler, credentials)",
    /\bupstream_reconcile_runs\b|\bupstream_orphan_sightings\b|\bpool_samples?\b|\bpool_sample_runs\b|\bcredentials\b/,
  ],
  ["activity marks", /\borg_activity\b/],
  ["jobs (records, pg-boss)", /\bpgboss\b|\bjobs\b|\bworker_heartbeats\b/],
  ["transaction control", /^\s*(begin|commit|rollback|set|savepoint|release|reset|show|discard)\b/i],
  ["allocation (ledger, locks)", /\ballocation_|\bbrand_leases\b/],
];

export function sourceOf(query: string): string {
  for (const [source, pattern] of SOURCES) if (pattern.test(query)) return source;
  return "API reads and writes (orgs, brands, markets, prompts)";
}

export class FleetDatabase {
  readonly #client: pg.Client;
  readonly statementStats: boolean;

  private constructor(client: pg.Client, statementStats: boolean) {
    this.#client = client;
    this.statementStats = statementStats;
  }

  static async open(url: string, statementStats: boolean): Promise<FleetDatabase> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new FleetDatabase(client, statementStats);
  }

  async query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    return (await this.#client.query<Row>(`${MARK} ${text}`, values)).rows;
  }

  async close(): Promise<void> {
    await this.#client.end();
  }

  /** Every table of the application's and pg-boss's schemas: total bytes (indexes, TOAST) and rows. */
  async tables(): Promise<TableStat[]> {
    const tables = await this.query<{ schema: string; name: string; bytes: string }>(
      `select n.nspname as schema, c.relname as name, pg_total_relation_size(c.oid) as bytes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
          and n.nspname not like 'pg_toast%' and c.relname <> 'pg_stat_statements_info'`,
    );
    const stats: TableStat[] = [];
    for (const table of tables) {
      const qualified = `"${table.schema}"."${table.name}"`;
      const [row] = await this.query<{ n: string }>(`select count(*) as n from ${qualified}`);
      stats.push({
        table: table.schema === "public" ? table.name : `${table.schema}.${table.name}`,
        bytes: Number(table.bytes),
        rows: Number(row?.n ?? 0),
      });
    }
    return stats.sort((a, b) => b.bytes - a.bytes);
  }

  async databaseBytes(): Promise<number> {
    const [row] = await this.query<{ bytes: string }>("select pg_database_size(current_database()) as bytes");
    return Number(row?.bytes ?? 0);
  }

  async resetStatements(): Promise<void> {
    if (this.statementStats) await this.query("select pg_stat_statements_reset()");
  }

  /** This database's statements since the last reset, by query id. */
  async statements(): Promise<Map<string, StatementStat>> {
    const found = new Map<string, StatementStat>();
    if (!this.statementStats) return found;
    const rows = await this.query<{ id: string; query: string; calls: string; total: number }>(
      `select queryid::text as id, query, calls, total_exec_time as total
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database()`,
    );
    for (const row of rows)
      found.set(row.id, { query: row.query, calls: Number(row.calls), totalMs: Number(row.total) });
    return found;
  }

  /** When the upstream reconciler last finished each org (the database's clock), epoch ms. */
  async reconcilerVisits(): Promise<Map<string, number>> {
    const rows = await this.query<{ org: string; at: Date | null }>(
      "select org_id as org, last_finished_at as at from upstream_reconcile_runs",
    );
    return new Map(rows.filter((row) => row.at).map((row) => [row.org, row.at!.getTime()]));
  }

  /**
   * When the pool sampler last finished each org: its per-org run row (pool_sample_runs, ADR 0042)
   * where the schema has one; before that, the parent's metering read every sampler pass makes
   * (`metering_as_of` on the parent's entry of the resources record).
   */
  async samplerVisits(): Promise<Map<string, number>> {
    const [table] = await this.query<{ found: string | null }>(
      "select to_regclass('pool_sample_runs')::text as found",
    );
    const rows = table?.found
      ? await this.query<{ org: string; at: Date }>(
          "select org_id as org, last_finished_at as at from pool_sample_runs where last_finished_at is not null",
        )
      : await this.query<{ org: string; at: Date }>(
          `select o.id as org, r.metering_as_of as at
             from orgs o join resource_observations r
               on r.org_id = o.id and r.workspace_id = o.parent_workspace_id
            where r.metering_as_of is not null`,
        );
    return new Map(rows.map((row) => [row.org, row.at.getTime()]));
  }

  /** Whether the schema has ADR 0042's idle pace (its activity marks table). */
  async hasIdlePace(): Promise<boolean> {
    const [table] = await this.query<{ found: string | null }>(
      "select to_regclass('org_activity')::text as found",
    );
    return Boolean(table?.found);
  }

  /** Each org's last reconcile run's upstream calls (ADR 0042 sets an idle org's period from it). */
  async reconcileCalls(): Promise<Map<string, number>> {
    const [column] = await this.query<{ n: string }>(
      `select count(*) as n from information_schema.columns
        where table_name = 'upstream_reconcile_runs' and column_name = 'last_calls'`,
    );
    if (Number(column?.n ?? 0) === 0) return new Map();
    const rows = await this.query<{ org: string; calls: number }>(
      "select org_id as org, last_calls as calls from upstream_reconcile_runs where last_calls is not null",
    );
    return new Map(rows.map((row) => [row.org, Number(row.calls)]));
  }

  /**
   * Ages the fleet by `ms`: every activity mark and job timestamp moved that far back, as if the
   * onboarding had ended that long ago, so orgs nobody touches in the window are idle at once
   * (ADR 0042's one hour is longer than a bench window). Returns the rows moved.
   */
  async ageFleet(ms: number): Promise<number> {
    let moved = 0;
    const [activity] = await this.query<{ found: string | null }>(
      "select to_regclass('org_activity')::text as found",
    );
    if (activity?.found) {
      const rows = await this.query<{ org_id: string }>(
        "update org_activity set active_at = active_at - $1 * interval '1 millisecond' returning org_id",
        [ms],
      );
      moved += rows.length;
    }
    const jobs = await this.query<{ id: string }>(
      `update jobs set created_at = created_at - $1 * interval '1 millisecond',
                       updated_at = updated_at - $1 * interval '1 millisecond'
        where status <> 'IN_PROGRESS' returning id`,
      [ms],
    );
    return moved + jobs.length;
  }

  /** Which org each upstream workspace id belongs to: parents, brands' and recorded sub-workspaces. */
  async workspaceOwners(): Promise<Map<string, string>> {
    const rows = await this.query<{ workspace: string; org: string }>(
      `select parent_workspace_id as workspace, id as org from orgs where parent_workspace_id is not null
       union select sub_workspace_id, org_id from brands where sub_workspace_id is not null
       union select workspace_id, org_id from resource_observations`,
    );
    return new Map(rows.map((row) => [row.workspace, row.org]));
  }

  /** Orgs with a job created since `since` (their background passes may run at full pace). */
  async orgsWithJobsSince(since: Date): Promise<Set<string>> {
    const rows = await this.query<{ org: string }>(
      "select distinct org_id as org from jobs where created_at >= $1",
      [since],
    );
    return new Set(rows.map((row) => row.org));
  }
}
