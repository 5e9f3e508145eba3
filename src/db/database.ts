import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";

import {
  DEFAULT_ACQUIRE_TIMEOUT_MS,
  DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  DEFAULT_STATEMENT_TIMEOUT_MS,
} from "../config/databaseDefaults.ts";
import { schema } from "./schema.ts";
import {
  guardPoolCheckouts,
  type NestedAcquireError,
  type NestedAcquirePolicy,
  runInTransactionScope,
} from "./transactionScope.ts";

export type Db = NodePgDatabase<typeof schema>;

/** A transaction handle or the root handle: db modules accept either (SPEC §4 rule 1). */
export type DbExecutor = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/** What the pool looks like right now (the `serenity_db_pool_*` gauges). */
export interface PoolStats {
  /** Connections handed out and not yet released (queries, transactions, the LISTEN session). */
  checkedOut: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
  max: number;
}

export interface Database {
  db: Db;
  pool: pg.Pool;
  stats(): PoolStats;
  /** Ends the pool, waiting for checked-out connections to come back. */
  close(): Promise<void>;
  /**
   * Ends every connection at once, checked out or not (their statements fail "Connection
   * terminated"): the last step of a shutdown whose grace ran out, so a stuck transaction can
   * never keep the database server from stopping.
   */
  forceClose(): Promise<void>;
}

/** The pool's settings (SERENITY_DB_*, src/config/env.ts); every field has a safe default. */
export interface DatabaseOptions {
  /** Connections in the pool (SERENITY_DB_POOL_SIZE); default 20. */
  max?: number;
  /** How long a caller waits for a free connection before failing "timeout exceeded when trying
   * to connect" (a 503 `databaseUnavailable` at the edge); default 10 s. */
  acquireTimeoutMs?: number;
  /** PostgreSQL's statement_timeout on every connection; default 30 s. 0 = none. */
  statementTimeoutMs?: number;
  /** PostgreSQL's idle_in_transaction_session_timeout on every connection; default 30 s. 0 = none. */
  idleInTransactionTimeoutMs?: number;
  /** What a checkout from inside an open transaction does (src/db/transactionScope.ts). */
  nestedAcquire?: NestedAcquirePolicy;
  /** Told of every nested checkout (a metric, a log line). */
  onNestedAcquire?: (error: NestedAcquireError) => void;
}

/**
 * How much longer than `statement_timeout` a client waits for the server's answer. A server that
 * cannot be heard at all (a silent partition: packets dropped, nobody told) never sends the
 * timeout's error, and without a wait of the client's own a statement would hang until TCP gave up
 * (a quarter of an hour): the request or the lease renewal waiting on it with it.
 */
export const ANSWER_GRACE_MS = 1_000;

/** node-postgres's error for a query whose answer did not come within `query_timeout`. */
const READ_TIMEOUT = "Query read timeout";

/**
 * A connection whose answer timed out is given up, never reused: the statement may still reach
 * the server once the path is back (TCP retransmits), and a later caller's statements would queue
 * behind it, inside its transaction. Destroying the socket ends the session on our side; the pool
 * drops the client when it is released.
 */
function abandonOnReadTimeout(client: pg.PoolClient): void {
  const abandon = (error: unknown) => {
    if (error instanceof Error && error.message === READ_TIMEOUT)
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  };
  // The class's own `query`, looked up at each call rather than captured now: what wraps the class
  // later (test/support/statementCount.ts counts statements on the prototype) still sees the call.
  const query = (...args: unknown[]) =>
    (Object.getPrototypeOf(client) as { query: (...a: unknown[]) => unknown }).query.apply(client, args);
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const last = args.at(-1);
    if (typeof last === "function") {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        abandon(error);
        (last as (error: unknown, result: unknown) => void)(error, result);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.then(undefined, abandon);
    return result;
  };
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const max = options.max ?? DEFAULT_POOL_SIZE;
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const idleInTransaction = options.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
    ...(statementTimeout > 0
      ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + ANSWER_GRACE_MS }
      : {}),
    ...(idleInTransaction > 0 ? { idle_in_transaction_session_timeout: idleInTransaction } : {}),
  });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // Nor a checked-out one between two queries (a transaction, a lock session): the pool listens
  // only to idle clients, and an unheard "error" event ends the process — a PostgreSQL restart
  // killed `serve --with-worker` (test/reliability/postgresRestart.test.ts). Its next query fails
  // instead, the caller sees that, and the pool drops the client when it comes back unqueryable.
  const clients = new Set<pg.PoolClient>();
  pool.on("connect", (client) => {
    clients.add(client);
    client.on("error", () => {});
    abandonOnReadTimeout(client);
  });
  pool.on("remove", (client) => clients.delete(client as pg.PoolClient));
  guardPoolCheckouts(pool, options.nestedAcquire ?? "throw", options.onNestedAcquire ?? (() => {}));
  const db = drizzle(pool, { schema });
  // Every root-handle transaction's callback runs in the guard's scope (savepoints of a
  // transaction handle stay on its connection and need none).
  const transaction = db.transaction.bind(db);
  db.transaction = ((body, config) =>
    transaction((tx) => runInTransactionScope(pool, () => body(tx)), config)) as Db["transaction"];
  let closing: Promise<void> | undefined;
  return {
    db,
    pool,
    stats: () => ({
      checkedOut: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max,
    }),
    close: () => (closing ??= pool.end()),
    forceClose: async () => {
      // pool.end() resolves only once every checked-out client is released, and ending a
      // checked-out client does not release it: start the end, cut every connection, and do not
      // wait for stragglers (the process is about to exit).
      closing ??= pool.end();
      closing.catch(() => {});
      await Promise.all([...clients].map((client) => client.end().catch(() => {})));
    },
  };
}
