import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type Database, openDatabase } from "../../../src/db/database.ts";
import { isDatabaseUnavailable } from "../../../src/db/isDatabaseUnavailable.ts";
import { NestedAcquireError } from "../../../src/db/transactionScope.ts";
import { createPgBossQueue, QueueNotStarted } from "../../../src/jobs/queue.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * The pool's hold-and-wait guard and its safety nets, on a real PostgreSQL. The shape under test
 * is the one that wedged a freshly started API: many transactions, each holding a connection,
 * awaiting one shared lazy start that needs another connection from the same pool.
 */

let base: TestDatabase;
const opened: Database[] = [];
beforeAll(async () => {
  base = await createTestDatabase();
});
afterAll(async () => {
  for (const database of opened) await database.close();
  await base.destroy();
});

function open(options: Parameters<typeof openDatabase>[1]): Database {
  const database = openDatabase(base.url, options);
  opened.push(database);
  return database;
}

/** Drizzle wraps a failed query's error ("Failed query: …"); the guard's is in the chain. */
function causedByNestedAcquire(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    if (current instanceof NestedAcquireError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** A start that runs once, on first use, on the root pool: what pg-boss's lazy start did. */
function lazyStart(database: Database): () => Promise<void> {
  let starting: Promise<void> | undefined;
  return () => (starting ??= database.pool.query("select 1").then(() => undefined));
}

/** Opens `count` connections and leaves them idle in the pool, retrying openings that time out. */
async function warm(database: Database, count: number): Promise<void> {
  await waitFor(
    async () => {
      const opened = await Promise.allSettled(Array.from({ length: count }, () => database.pool.connect()));
      for (const outcome of opened) if (outcome.status === "fulfilled") outcome.value.release();
      return opened.every((outcome) => outcome.status === "fulfilled") && database.stats().idle >= count;
    },
    { what: `${count} idle connections` },
  );
}

/** The shape that wedged a cold API: 100 transactions, each holding its connection, awaiting one lazy start. */
function wedgeShape(database: Database): Promise<PromiseSettledResult<void>[]> {
  const start = lazyStart(database);
  return Promise.allSettled(
    Array.from({ length: 100 }, () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await start();
      }),
    ),
  );
}

describe("the pool guard", () => {
  it("refuses a root-pool checkout from inside an open transaction, and only there", async () => {
    const nested: NestedAcquireError[] = [];
    const database = open({ max: 4, onNestedAcquire: (error) => nested.push(error) });
    const { db } = database;
    await expect(db.execute(sql`select 1`)).resolves.toBeDefined();
    await expect(
      db.transaction(async () => {
        await db.execute(sql`select 1`); // the root handle, not tx: SPEC §4 rule 1 broken
      }),
    ).rejects.toSatisfy(causedByNestedAcquire);
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.transaction(async (inner) => inner.execute(sql`select 2`)); // a savepoint
        return "ok";
      }),
    ).resolves.toBe("ok");
    expect(nested).toHaveLength(1);
    // Work a transaction started and left running is not blamed once the transaction has ended.
    let later: Promise<unknown> | undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      later = gate.then(() => db.execute(sql`select 3`));
    });
    release();
    await expect(later).resolves.toBeDefined();
    expect(nested).toHaveLength(1);
    expect(database.stats().checkedOut).toBe(0);
  });

  it("turns the wedge shape into prompt errors: 100 transactions awaiting a lazy start on a pool of 10", async () => {
    const database = open({ max: 10 });
    const outcomes = await wedgeShape(database);
    expect(outcomes.every((outcome) => outcome.status === "rejected")).toBe(true);
    expect(causedByNestedAcquire((outcomes[0] as PromiseRejectedResult).reason)).toBe(true);
    expect(database.stats()).toMatchObject({ checkedOut: 0, waiting: 0 });
  });

  it("with the guard only warning, the same shape still ends: the acquire timeout breaks it as databaseUnavailable", async () => {
    let warned = 0;
    const database = open({
      max: 10,
      nestedAcquire: "warn",
      acquireTimeoutMs: 300,
      onNestedAcquire: () => warned++,
    });
    // Ten open connections first: the 300 ms timeout also bounds opening one, which a loaded
    // machine can exceed, and the subject here is the wait for a connection held in the wedge.
    await warm(database, 10);
    const outcomes = await wedgeShape(database);
    // Every transaction held a connection or waited for one while the start waited behind them:
    // without the timeout this never ends. With it, each fails as a database that is unavailable
    // right now (a 503 at the edge), and the pool is whole again.
    const reasons = outcomes.map((outcome) => (outcome.status === "rejected" ? outcome.reason : undefined));
    expect(reasons.every((reason) => reason !== undefined && isDatabaseUnavailable(reason))).toBe(true);
    expect(warned).toBeGreaterThan(0);
    await waitFor(() => database.stats().checkedOut === 0, { what: "connections back in the pool" });
    await expect(database.db.execute(sql`select 1`)).resolves.toBeDefined();
  });
});

describe("the server-side timeouts on every connection", () => {
  it("sets both server-side timeouts on every connection it opens", async () => {
    const database = open({ max: 1, statementTimeoutMs: 1500, idleInTransactionTimeoutMs: 2500 });
    const shown = await database.db.execute<{ statement: string; idle: string }>(
      sql`select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle`,
    );
    expect(shown.rows[0]).toEqual({ statement: "1500ms", idle: "2500ms" });
  });

  it("ends a transaction left idle past idle_in_transaction_session_timeout, and its connection comes back", async () => {
    const database = open({ max: 2, idleInTransactionTimeoutMs: 200 });
    let backend: number | undefined;
    const transaction = database.db.transaction(async (tx) => {
      backend = (await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`)).rows[0]!.pid;
      // Idle in transaction until the server has ended this session, watched from another pool
      // (a checkout there is not a nested one).
      await waitFor(
        async () =>
          (await base.db.execute(sql`select 1 from pg_stat_activity where pid = ${backend}`)).rows.length ===
          0,
        { what: "the server ending the idle transaction" },
      );
      await tx.execute(sql`select 1`);
    });
    const error = await transaction.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    // Ended by the server (its session is gone), whichever statement of the transaction noticed.
    expect(error).toBeDefined();
    expect(error).not.toSatisfy(causedByNestedAcquire);
    if (backend !== undefined) {
      const alive = await base.db.execute(sql`select 1 from pg_stat_activity where pid = ${backend}`);
      expect(alive.rows).toHaveLength(0);
    }
    await waitFor(() => database.stats().checkedOut === 0, { what: "the connection released" });
    await expect(database.db.execute(sql`select 1`)).resolves.toBeDefined();
  });

  it("guards only the pool whose connection the transaction holds", async () => {
    const database = open({ max: 2 });
    const other = open({ max: 2 });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        return (await other.db.execute<{ one: number }>(sql`select 1 as one`)).rows[0]!.one;
      }),
    ).resolves.toBe(1);
  });

  it("cancels a statement past statement_timeout (57014)", async () => {
    const database = open({ max: 1, statementTimeoutMs: 100 });
    const error = await database.db.execute(sql`select pg_sleep(30)`).catch((caught: unknown) => caught);
    const codes = [error, (error as { cause?: unknown }).cause].map(
      (candidate) => (candidate as { code?: string })?.code,
    );
    expect(codes).toContain("57014");
  });

  it("forceClose ends checked-out connections too, so nothing keeps the server from stopping", async () => {
    const database = open({ max: 2 });
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const stuck = database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      inside();
      await tx.execute(sql`select pg_sleep(60)`);
    });
    const outcome = stuck.then(
      () => "committed",
      () => "ended",
    );
    await entered;
    await database.forceClose();
    expect(await outcome).toBe("ended");
    expect(database.stats().checkedOut).toBe(0);
  });
});

describe("the job queue starts at boot, never inside an enqueue", () => {
  it("refuses an enqueue before start() with QueueNotStarted (a wiring mistake, never a wait), then enqueues in a transaction", async () => {
    const database = open({ max: 10 });
    const queue = createPgBossQueue({
      pool: database.pool,
      logger: createLogger({ level: "silent" }),
      name: "transaction-scope-test",
    });
    const early = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        database.db.transaction((tx) => queue.enqueue("00000000-0000-4000-8000-000000000001", { db: tx })),
      ),
    );
    expect(
      early.map((outcome) => outcome.status === "rejected" && outcome.reason instanceof QueueNotStarted),
    ).toEqual(Array.from({ length: 20 }, () => true));
    await queue.start();
    const sent = await database.db.transaction((tx) =>
      queue.enqueue("00000000-0000-4000-8000-000000000002", { db: tx }),
    );
    expect(sent).toEqual(expect.any(String));
    await queue.stop();
  });
});
