import { AsyncLocalStorage } from "node:async_hooks";

import type pg from "pg";

/**
 * The hold-and-wait guard of the connection pool. A transaction holds one of the pool's
 * connections until it ends; if anything it awaits asks the same pool for another connection
 * (a lazy start, a cache filled on first use, a root-handle query that should have used the
 * transaction's), a burst of such transactions can hold every connection while each waits for
 * one more: the pool deadlocks for good. Every root-handle transaction runs its callback inside a
 * scope, and a pool checkout requested from inside an open scope is refused (`throw`) or reported
 * (`warn`). SPEC §4 rule 1 made checkable.
 */

/** `throw`: refuse the checkout with NestedAcquireError; `warn`: let it through and report it. */
export type NestedAcquirePolicy = "throw" | "warn";

interface Scope {
  open: boolean;
  /** The pool whose connection the transaction holds: only that pool's checkouts are guarded. */
  pool: pg.Pool;
}

const transactionScope = new AsyncLocalStorage<Scope>();

/** True while the caller's async context is inside an open root-handle transaction on `pool`. */
export function insideTransaction(pool: pg.Pool): boolean {
  const scope = transactionScope.getStore();
  return scope?.open === true && scope.pool === pool;
}

/**
 * Runs `body` as a transaction's callback: inside it, `insideTransaction()` holds. The scope is
 * closed when the body settles, so work it started and left running (a fire-and-forget promise)
 * is not blamed for checkouts it makes after the transaction ended.
 */
export async function runInTransactionScope<T>(pool: pg.Pool, body: () => Promise<T>): Promise<T> {
  const scope: Scope = { open: true, pool };
  try {
    return await transactionScope.run(scope, body);
  } finally {
    scope.open = false;
  }
}

/**
 * Runs `work` outside any transaction's scope: for shared work that the first of many callers
 * happens to start (a poll loop serving every waiter) and that must not be blamed on, or bound
 * to, that caller's transaction.
 */
export function outsideTransactionScope<T>(work: () => T): T {
  return transactionScope.exit(work);
}

export class NestedAcquireError extends Error {
  constructor() {
    super(
      "A database connection was requested from the pool while this async context holds an open " +
        "transaction: use the transaction's handle (a burst of these deadlocks the pool).",
    );
    this.name = "NestedAcquireError";
  }
}

type Connect = pg.Pool["connect"];

/**
 * Wraps `pool.connect` (which `pool.query` also goes through) with the guard. `onNested` is told of
 * every nested checkout, whatever the policy, so it can be counted.
 */
export function guardPoolCheckouts(
  pool: pg.Pool,
  policy: NestedAcquirePolicy,
  onNested: (error: NestedAcquireError) => void,
): void {
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  const guarded = (...args: unknown[]): unknown => {
    if (insideTransaction(pool)) {
      const error = new NestedAcquireError();
      onNested(error);
      if (policy === "throw") {
        const callback = args[0];
        if (typeof callback === "function") {
          process.nextTick(() => (callback as (error: Error) => void)(error));
          return undefined;
        }
        return Promise.reject(error);
      }
    }
    return connect(...args);
  };
  pool.connect = guarded as Connect;
}
