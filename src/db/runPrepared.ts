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
