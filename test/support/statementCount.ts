import { AsyncLocalStorage } from "node:async_hooks";

import pg from "pg";

/**
 * Counts the SQL statements a piece of work sends, on every connection of this process: each
 * statement goes through `pg.Client#query` once (a pool's query checks a client out and calls it),
 * and the work's async context tells its statements from everyone else's (a job runner's poll, a
 * background refresh another request started). The instrument of "at most one extra indexed read"
 * assertions: what a guarded write costs the database, not only the upstream.
 */

const current = new AsyncLocalStorage<string[]>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(this: pg.Client, ...args: unknown[]) {
    const statements = current.getStore();
    if (statements) {
      const [first] = args;
      const text = typeof first === "string" ? first : (first as { text?: string } | undefined)?.text;
      statements.push((text ?? "?").replace(/\s+/g, " ").trim());
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
}

/** Runs `work`, answering its result and the statements it (and what it started) sent meanwhile. */
export async function countStatements<T>(
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  install();
  const statements: string[] = [];
  const result = await current.run(statements, work);
  return { result, statements: [...statements] };
}
