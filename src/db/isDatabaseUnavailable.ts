/** Node network codes of a connection to PostgreSQL that failed or broke. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);
/** SQLSTATEs of a server going away: admin / crash shutdown, cannot connect now. */
const SHUTDOWN_STATES = new Set(["57P01", "57P02", "57P03"]);
/**
 * What node-postgres says when a client lost its server (no code attached), or heard nothing back
 * within its own wait (`query_timeout`, src/db/database.ts: a silent partition).
 */
const LOST_CONNECTION =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout/i;

/**
 * True when `error` (or a cause in its chain: drizzle wraps the pg error) says the database cannot
 * be reached right now — a connection refused or lost, the server shutting down, SQLSTATE class 08
 * — rather than that a statement was wrong: a transient condition for a 503, not a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof candidate.code === "string" ? candidate.code : "";
    if (NETWORK_CODES.has(code) || SHUTDOWN_STATES.has(code) || code.startsWith("08")) return true;
    if (typeof candidate.message === "string" && LOST_CONNECTION.test(candidate.message)) return true;
    current = candidate.cause;
  }
  return false;
}
