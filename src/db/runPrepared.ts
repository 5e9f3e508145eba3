import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { QueryResult, QueryResultRow } from "pg";

import type { DbExecutor } from "./database.ts";

const dialect = new PgDialect();

/**
 * Runs a statement of the upstream budget as a named prepared statement: it runs before and after
 * every upstream call, and planning its CTEs anew each time cost as much as executing them
 * (bench/upstream-budget.ts). node-postgres prepares it once per connection under `name`; the text
 * must be the same for every call of that name (only the parameters vary).
 */
export async function runPrepared<R extends QueryResultRow>(
  db: DbExecutor,
  name: string,
  query: SQL,
): Promise<QueryResult<R>> {
  const built = dialect.sqlToQuery(query);
  const client = (db as { $client?: { query: (config: object) => Promise<QueryResult<R>> } }).$client;
  if (!client) return (await db.execute(query)) as unknown as QueryResult<R>;
  return client.query({ name, text: built.sql, values: built.params });
}

/**
 * A named prepared statement written once as text with `$n` placeholders: nothing is built per
 * call, only `values` vary (the allocation lease's statements, on every guarded section).
 */
export async function runPreparedText<R extends QueryResultRow>(
  db: DbExecutor,
  name: string,
  text: string,
  values: unknown[],
): Promise<QueryResult<R>> {
  type Client = { query: (config: object) => Promise<QueryResult<R>> };
  const handle = db as { $client?: Client; session?: { client?: Client } };
  const client = handle.$client ?? handle.session?.client;
  if (!client) throw new TypeError(`runPreparedText: no client to run ${name} on`);
  return client.query({ name, text, values });
}
