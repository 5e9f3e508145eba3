import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { jobs } from "../../src/db/schema.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { spawnServe } from "../support/serveProcess.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";
import { waitFor } from "../support/wait.ts";
import { spawnWorker } from "../support/workerProcess.ts";

/**
 * A burst at a process that has just started. Each case is a real process on a database its
 * queue has never run on and a fresh data directory, with no warm-up: the first thing it does is
 * take 100 concurrent async brand creates (or 100 due jobs). Before the fix, the queue started
 * lazily inside the first enqueues' transactions; when they arrived together every pool
 * connection sat "idle in transaction" waiting for a start that needed one more, and the process
 * never answered again. With the start at boot (and the pool guard refusing any checkout made
 * inside a transaction), a regression fails here at once instead of hanging: an enqueue that
 * started the queue lazily would be refused by the guard, and every create would answer 5xx.
 */

const SECRET = "cold-burst-test-secret-0123456789abcdef";
const BURST = 100;
/** A hang guard for tests that spawn processes and run 100 provisioning chains; no speed target. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;

let sim: TestSimulator;
beforeAll(async () => {
  sim = await startTestSimulator({ seed: "unmetered", settings: { settleReads: 0 } });
});
afterAll(() => sim.close());

interface Cold {
  db: TestDatabase;
  env: Record<string, string>;
  dataDir: string;
  cleanup(): Promise<void>;
}

async function coldSetup(): Promise<Cold> {
  const db = await createTestDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-cold-"));
  return {
    db,
    dataDir,
    env: {
      DATABASE_URL: db.url,
      SERENITY_DATA_DIR: dataDir,
      SERENITY_AUTH_SECRET: SECRET,
      SEMRUSH_PROJECTS_BASE_URL: sim.url,
      SEMRUSH_USERS_BASE_URL: sim.url,
      // The subject is the deadlock, not the pool's acquire timeout (its own test is in
      // test/integration/db/transactionScope.test.ts): on a loaded machine, 100 creates on one
      // pool may queue for connections longer than the 10 s default, which would answer 503.
      SERENITY_DB_ACQUIRE_TIMEOUT_MS: "60000",
      // Likewise the shutdown's grace (20 s by default) is a bound, not the subject: once, in a full
      // CI run, `serve --with-worker` exited 1 on SIGTERM after every job had completed (not seen
      // again in five runs alone or under load). A stop that still fails prints the process's
      // output with the exit code.
      SERENITY_SHUTDOWN_GRACE_MS: "60000",
      // Jobs finish fast against the simulator; the reconcilers stay out of the way.
      SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "0",
      // The 100 brands' provisioning calls would share one account's upstream budget (10 / s by
      // default), so "every job completes" would mostly wait on pacing (~65 s at the least), which
      // is the budget's subject (test/reliability/upstreamBudgetMultiProcess.test.ts), not this
      // one's. Unlimited here: no pacing (the simulator's own limiter is off as well).
      SERENITY_UPSTREAM_RATE_PER_SECOND: "0",
      SERENITY_UPSTREAM_CONCURRENT: "0",
    },
    cleanup: async () => {
      await db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function adminHeaders(): Promise<Record<string, string>> {
  const token = await signDevToken(SECRET, { sub: "cold-admin", admin: true });
  return { authorization: `Bearer ${token}`, "content-type": "application/json" };
}

/** 100 async brand creates at once; resolves with each answer's status (or the failure). */
async function burst(url: string, label: string): Promise<{ statuses: (number | string)[]; orgId: string }> {
  const headers = await adminHeaders();
  const org = await fetch(`${url}/v2/orgs`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: `Cold ${label}`, parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID }),
  });
  expect(org.status).toBe(201);
  const orgId = ((await org.json()) as { id: string }).id;
  const statuses = await Promise.all(
    Array.from({ length: BURST }, (_, index) =>
      fetch(`${url}/v2/orgs/${orgId}/brands`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          name: `${label} ${index}`,
          domain: `${label.toLowerCase()}-${index}.example`,
          semrushMarket: { market: "US", languageCode: "en" },
          async: true,
        }),
        // A hang guard, not a speed target: a wedged process never answers.
        signal: AbortSignal.timeout(90_000),
      }).then(
        async (response) =>
          response.status === 202 ? 202 : `${response.status} ${(await response.text()).slice(0, 200)}`,
        (error: unknown) => `no answer (${(error as Error).name})`,
      ),
    ),
  );
  return { statuses, orgId };
}

async function jobCounts(db: TestDatabase): Promise<Record<string, number>> {
  const rows = await db.db.execute<{ status: string; count: number }>(
    sql`select status, count(*)::int as count from ${jobs} group by status`,
  );
  return Object.fromEntries(rows.rows.map((row) => [row.status, row.count]));
}

/** Waits (observed state; the deadline is a hang guard) until no job is IN_PROGRESS. */
async function allJobsSettled(db: TestDatabase): Promise<Record<string, number>> {
  let counts: Record<string, number> = {};
  await waitFor(
    async () => {
      counts = await jobCounts(db);
      return (counts.IN_PROGRESS ?? 0) === 0;
    },
    { timeoutMs: 150_000, what: "every job settled" },
  );
  return counts;
}

describe("a burst at a freshly started process", () => {
  it(
    "cold `serve`: 100 concurrent async creates all answer 202, and SIGTERM ends it",
    async () => {
      const cold = await coldSetup();
      const serve = await spawnServe(cold.env);
      try {
        const { statuses } = await burst(serve.url, "Serve");
        expect(statuses.filter((status) => status !== 202)).toEqual([]);
        // Every accepted create left its job record (nothing was lost in a rolled-back transaction).
        expect((await jobCounts(cold.db)).IN_PROGRESS ?? 0).toBeGreaterThanOrEqual(BURST);
      } finally {
        const code = await serve.stop();
        expect(code, serve.output().slice(-4000)).toBe(0);
        await cold.cleanup();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "cold `serve --with-worker`: 100 concurrent async creates all answer 202 and every job completes",
    async () => {
      const cold = await coldSetup();
      const serve = await spawnServe(cold.env, { withWorker: true });
      try {
        const { statuses } = await burst(serve.url, "Both");
        expect(statuses.filter((status) => status !== 202)).toEqual([]);
        const counts = await allJobsSettled(cold.db);
        expect(counts.FAILED ?? 0).toBe(0);
        expect(counts.COMPLETED ?? 0).toBeGreaterThanOrEqual(BURST);
      } finally {
        const code = await serve.stop();
        expect(code, serve.output().slice(-4000)).toBe(0);
        await cold.cleanup();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "cold `worker`: 100 jobs due at once all complete",
    async () => {
      const cold = await coldSetup();
      // An API with no worker takes the creates; its jobs wait in the queue until it has stopped.
      const serve = await spawnServe(cold.env);
      let statuses: (number | string)[];
      try {
        ({ statuses } = await burst(serve.url, "Queued"));
      } finally {
        const code = await serve.stop();
        expect(code, serve.output().slice(-4000)).toBe(0);
      }
      expect(statuses.filter((status) => status !== 202)).toEqual([]);
      const worker = spawnWorker(cold.env);
      try {
        await worker.started;
        const counts = await allJobsSettled(cold.db);
        expect(counts.FAILED ?? 0).toBe(0);
        expect(counts.COMPLETED ?? 0).toBeGreaterThanOrEqual(BURST);
      } finally {
        worker.child.kill("SIGTERM");
        await worker.exited;
        await cold.cleanup();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
