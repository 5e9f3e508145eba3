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
  ["resources record", /\bresource_observations\b|\bpool_free_bounds\b/],
  ["idempotency keys", /\bidempotency_keys\b/],
  ["jobs (records, pg-boss)", /\bpgboss\b|\bjobs\b|\bworker_heartbeats\b/],
  [
    "passes (reconciler, sampler, credentials)",
    /\bupstream_reconcile_runs\b|\bupstream_orphan_sightings\b|\bpool_samples\b|\bcredentials\b/,
  ],
  ["transaction control", /^\s*(begin|commit|rollback|set|savepoint|release|reset|show|discard)\b/i],
  ["allocation (ledger, locks, publishes)", /\ballocation_|\bbrand_leases\b|\bmodel_set_changes\b/],
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
   * When the pool sampler last visited each org: every sampler pass reads the org's parent metering
   * again (spec/allocation.md §13), stamped on the parent's entry of the resources record
   * (`metering_as_of`, the app clock at the read's start). Nothing else re-reads a known metering.
   */
  async samplerVisits(): Promise<Map<string, number>> {
    const rows = await this.query<{ org: string; at: Date }>(
      `select o.id as org, r.metering_as_of as at
         from orgs o join resource_observations r
           on r.org_id = o.id and r.workspace_id = o.parent_workspace_id
        where r.metering_as_of is not null`,
    );
    return new Map(rows.map((row) => [row.org, row.at.getTime()]));
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
