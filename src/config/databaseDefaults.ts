/**
 * The connection pool's defaults (SERENITY_DB_*). Why these numbers: docs/decisions/0018.
 * - 20 connections: a worker's 10 handlers + its reserve of 2, with 8 left for the API beside it.
 * - 10 s to get a connection: under the edge's 15 s budget, so a request that cannot get one
 *   answers 503 `databaseUnavailable` instead of hanging; long enough for a burst to queue.
 * - 30 s statement and idle-in-transaction timeouts: no Serenity statement or transaction comes
 *   near them (no transaction spans an upstream call), so only a wedge or a runaway meets them,
 *   and the server then frees the connection the process could not.
 */
export const DEFAULT_POOL_SIZE = 20;
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 10_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
export const DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
