import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "../../src/config/env.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { openRuntime } from "../../src/runtime/runtime.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { api, prepareOrg, type ServeProcess, startServe } from "../support/multiProcessWorkload.ts";
import { type PgBouncer, startPgBouncer } from "../support/pgbouncer.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";
import { waitFor } from "../support/wait.ts";
import { spawnWorker, type WorkerProcess } from "../support/workerProcess.ts";

/**
 * Serenity behind a real PgBouncer (Debian's, as .ci/run installs it; docs/decisions/0038): in
 * session mode, `serve` and `worker` — every connection through it — provision a brand
 * asynchronously end to end; in transaction mode, Serenity refuses to start in one line naming the
 * mode and the fix, found by behaviour (two sessions sharing one server process).
 */
const CREDENTIAL_KEY = Buffer.alloc(32, 5).toString("base64");
let db: TestDatabase;
let sim: TestSimulator;
let session: PgBouncer;
let transaction: PgBouncer;
let serve: ServeProcess | undefined;
let worker: WorkerProcess | undefined;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  [sim, session, transaction] = await Promise.all([
    startTestSimulator({ seed: "gold" }),
    startPgBouncer(db.url, "session"),
    startPgBouncer(db.url, "transaction"),
  ]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-pgbouncer-worker-"));
}, 60_000);

afterAll(async () => {
  if (worker && worker.child.exitCode === null) {
    worker.child.kill("SIGTERM");
    await worker.exited;
  }
  await serve?.stop();
  await Promise.all([session?.stop(), transaction?.stop()]);
  await sim?.close();
  await db?.destroy();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe("PgBouncer", () => {
  it("in transaction mode: Serenity refuses to start, in one line naming the mode and the fix", async () => {
    const config = loadConfig({ DATABASE_URL: transaction.url, SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY });
    const opening = openRuntime(config, createLogger({ level: "silent" }));
    await expect(opening).rejects.toThrow(
      "DATABASE_URL goes through a pooler in transaction mode (two sessions shared one PostgreSQL process): " +
        "Serenity needs session semantics (LISTEN, session advisory locks, prepared statements); " +
        "set pool_mode = session for its database in PgBouncer, or connect to PostgreSQL directly (docs/decisions/0038)",
    );
    // The same database through the session-mode PgBouncer opens.
    const direct = await openRuntime(
      loadConfig({ DATABASE_URL: session.url, SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY }),
      createLogger({ level: "silent" }),
    );
    await direct.close();
  });

  it("in session mode: serve and worker provision a brand asynchronously through it", async () => {
    worker = spawnWorker(
      {
        DATABASE_URL: session.url,
        SEMRUSH_PROJECTS_BASE_URL: sim.url,
        SEMRUSH_USERS_BASE_URL: sim.url,
        SERENITY_DYNAMIC_ALLOCATION: "true",
        SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY,
        SERENITY_DATA_DIR: dataDir,
      },
      { keepOutput: true },
    );
    [serve] = await Promise.all([
      startServe({
        databaseUrl: session.url,
        simulatorUrl: sim.url,
        env: { SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY },
      }),
      worker.started,
    ]);
    const { orgId, token } = await prepareOrg(serve.url);
    const created = await api<{ id: string; jobId: string }>(
      serve.url,
      token,
      "POST",
      `/v2/orgs/${orgId}/brands`,
      {
        name: "Pooled",
        domain: "pooled.example",
        semrushMarket: { market: "US", languageCode: "en" },
        async: true,
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { id: brandId, jobId } = created.body;
    // Polled on the job's observed state, as a client does.
    let status = "IN_PROGRESS";
    await waitFor(
      async () => {
        if (worker!.child.exitCode !== null) throw new Error(`the worker exited:\n${worker!.output()}`);
        const job = await api<{ status: string }>(
          serve!.url,
          token,
          "GET",
          `/v2/orgs/${orgId}/brands/${brandId}/serenity/jobs/${jobId}`,
        );
        status = job.body.status;
        return status !== "IN_PROGRESS";
      },
      { timeoutMs: 90_000, what: "the provisioning job ending" },
    );
    expect(status).toBe("COMPLETED");
    const brand = await api<{ status: string }>(
      serve.url,
      token,
      "GET",
      `/v2/orgs/${orgId}/brands/${brandId}`,
    );
    expect(brand.body.status).toBe("active");
  }, 120_000);
});
