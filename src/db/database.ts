import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";

import { schema } from "./schema.ts";

export type Db = NodePgDatabase<typeof schema>;

/** A transaction handle or the root handle: db modules accept either (SPEC §4 rule 1). */
export type DbExecutor = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function openDatabase(url: string, options: { max?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, idleTimeoutMillis: 10_000 });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // Nor a checked-out one between two queries (a transaction, a lock session): the pool listens
  // only to idle clients, and an unheard "error" event ends the process — a PostgreSQL restart
  // killed `serve --with-worker` (test/reliability/postgresRestart.test.ts). Its next query fails
  // instead, the caller sees that, and the pool drops the client when it comes back unqueryable.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}
