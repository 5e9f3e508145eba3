import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Principal } from "../../src/auth/principal.ts";
import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { brands, jobs } from "../../src/db/schema.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { JobReconciler } from "../../src/jobs/reconciler.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { staleAttemptsStep } from "../../src/provisioning/staleAttemptsStep.ts";
import { createServices, type Services } from "../../src/runtime/services.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { ManualClock } from "../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * Crash safety (SPEC §7, spec/provisioning.md §8): 20 brands provision asynchronously while a
 * real `serenity worker` process is SIGKILLed at random moments and restarted, 50 kills in all.
 * Then, instead of sleeping out leases, time is made to pass (see `letLeasesExpire`), the
 * reconciler runs on a ManualClock, and a last worker drains. Every brand must end `ready` or
 * `failed`; no brand may have two workspaces, no workspace two brands; every workspace we
 * created under the parent is claimed (a brand's pointer) or empty.
 */
const BRANDS = 20;
const KILLS = 50;
const PARENT = UNMETERED_PARENT_WORKSPACE_ID;
const repoRoot = path.resolve(import.meta.dirname, "../..");

let db: TestDatabase;
let sim: TestSimulator;
let services: Services;
let gateway: GatewayClient;
let orgId: string;
let user: Principal;
const events = new EventBus();
const logger = createLogger({ level: "silent" });
const credentialKey = randomBytes(32);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "serenity-crash-"));

/** A small seeded PRNG, so a failing run can be replayed with the same kill moments. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
const random = prng(seed);

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "unmetered" });
  // Time mode: a new workspace settles 300–800 ms after its create (the spread comes from when
  // each brand's create lands between kills).
  await sim.control("/settings", { settleMode: "time", settleMs: 500 });
  gateway = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events,
    logger,
    clock: systemClock,
  });
  services = createServices({ db: db.db, clock: systemClock, events, logger, credentialKey, gateway });
  const admin: Principal = { sub: "admin", orgIds: [], isAdmin: true, bearer: "unused" };
  orgId = (await services.orgs.create(admin, { name: "Crash org", parentWorkspaceId: PARENT })).id;
  const bearer = await signDevToken("crash-test-secret-long-enough-0123456789", {
    sub: "user-1",
    orgs: [orgId],
  });
  user = { sub: "user-1", orgIds: [orgId], isAdmin: false, bearer };
});

afterAll(async () => {
  await gateway?.close();
  await sim?.close();
  await db?.destroy();
});

interface RunningWorker {
  child: ChildProcess;
  started: Promise<void>;
  exited: Promise<void>;
  hasStarted(): boolean;
}

function spawnWorker(): RunningWorker {
  const child = spawn(process.execPath, ["bin/serenity.mjs", "worker", "--shutdown-grace-ms", "2000"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      SEMRUSH_PROJECTS_BASE_URL: sim.url,
      SEMRUSH_USERS_BASE_URL: sim.url,
      SERENITY_CREDENTIAL_KEY: credentialKey.toString("base64"),
      SERENITY_DATA_DIR: dataDir,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let started = false;
  let output = "";
  const startedPromise = new Promise<void>((resolve) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (started) return;
      output += chunk.toString("utf8");
      if (output.includes("job worker started")) {
        started = true;
        resolve();
      }
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, started: startedPromise, exited, hasStarted: () => started };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function createBrand(index: number): Promise<void> {
  const outcome = await services.provisioning.createBrand(
    user,
    orgId,
    {
      name: `Crash brand ${index}`,
      domain: `brand${index}.example`,
      semrushMarket: { market: "US", languageCode: "en" },
      async: true,
    },
    { requestId: undefined },
  );
  expect("accepted" in outcome).toBe(true);
}

/**
 * Time passing, as far as the dead workers' claims go, done by one UPDATE each instead of
 * sleeping: their leases (5 min) and their pg-boss messages' expiry (15 min) are moved an hour
 * into the past — exactly what the clock reaching those deadlines would look like to the
 * reconciler, to pg-boss's own maintenance and to the next claimant. Nothing else moves.
 */
async function letLeasesExpire(): Promise<{ leases: number; messages: number }> {
  const leases = await db.db.execute(
    sql`update ${jobs} set lease_expires_at = now() - interval '1 hour' where status = 'IN_PROGRESS' and lease_token is not null`,
  );
  const messages = await db.db.execute(
    sql`update pgboss.job set started_on = now() - interval '1 day' where state = 'active'`,
  );
  return { leases: leases.rowCount ?? 0, messages: messages.rowCount ?? 0 };
}

function reconcilerAt(clock: ManualClock): JobReconciler {
  const jobService = services.jobs;
  const reconciler = new JobReconciler({
    db: db.db,
    clock,
    logger,
    events,
    registry: jobService.registry,
    queue: jobService.queue,
    credentials: jobService.credentials,
  });
  const step = staleAttemptsStep({ events });
  return reconciler.addStep(step.name, step.step);
}

async function unsettledBrands(): Promise<number> {
  const result = await db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from ${brands} where provisioning_status is distinct from 'ready' and provisioning_status is distinct from 'failed'`,
  );
  return result.rows[0]!.n;
}

async function liveJobs(): Promise<number> {
  const result = await db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from ${jobs} where status = 'IN_PROGRESS'`,
  );
  return result.rows[0]!.n;
}

describe("crash safety of asynchronous provisioning", () => {
  it(
    `SIGKILLs a worker ${KILLS} times while ${BRANDS} brands provision; everything converges`,
    { timeout: 240_000 },
    async () => {
      const started = Date.now();
      let killsAfterStart = 0;
      let created = 0;
      await services.jobs.queue.start();
      for (; created < BRANDS / 2; created++) await createBrand(created);

      for (let kill = 0; kill < KILLS; kill++) {
        // The other half of the brands arrive while workers keep dying.
        while (created < BRANDS && created < BRANDS / 2 + Math.floor(kill / 2)) await createBrand(created++);
        const worker = spawnWorker();
        // A random moment: during start-up (migrations, queue start) or while jobs run.
        await Promise.race([pause(300 + random() * 2200), worker.exited]);
        if (worker.hasStarted()) killsAfterStart += 1;
        worker.child.kill("SIGKILL");
        await worker.exited;
      }
      while (created < BRANDS) await createBrand(created++);
      const killPhaseMs = Date.now() - started;

      // Recovery: the dead workers' leases and messages expire, the reconciler (on a clock past the
      // stall grace, within the stale threshold) redelivers what nothing will deliver, a last
      // worker drains.
      const expired = await letLeasesExpire();
      const recovery = await reconcilerAt(new ManualClock(new Date(Date.now() + 3 * 60_000))).run();
      const last = spawnWorker();
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && ((await unsettledBrands()) > 0 || (await liveJobs()) > 0))
        await pause(250);
      // Anything still pending now is a stuck attempt: the reconciler past the stale threshold fails it.
      const stale = await reconcilerAt(new ManualClock(new Date(Date.now() + 11 * 60_000))).run();
      last.child.kill("SIGTERM");
      await last.exited;

      const rows = await db.db.select().from(brands);
      const statuses = rows.map((row) => row.provisioningStatus);
      const summary = {
        seed,
        killPhaseMs,
        killsAfterStart,
        expired,
        redelivered: recovery.redelivered,
        stale: stale.steps["provisioning.staleAttempts"],
        ready: statuses.filter((status) => status === "ready").length,
        failed: statuses.filter((status) => status === "failed").length,
      };
      console.info("crash run", JSON.stringify(summary));

      // Every brand ready or failed.
      expect(rows).toHaveLength(BRANDS);
      expect(statuses.every((status) => status === "ready" || status === "failed")).toBe(true);
      // Crashes alone never fail an attempt, unless one of its jobs kept dying until its
      // deliveries were spent (then the job is FAILED and the attempt went stale).
      for (const row of rows.filter((brand) => brand.provisioningStatus === "failed")) {
        const spent = await db.db.execute<{ n: number }>(
          sql`select count(*)::int as n from ${jobs} where brand_id = ${row.id} and status = 'FAILED' and error->>'code' in ('JOB_FAILED', 'JOB_STALLED')`,
        );
        expect(spent.rows[0]!.n, `brand ${row.name} failed without a spent job`).toBeGreaterThan(0);
      }
      // The run did crash workers mid-work (not only during start-up).
      expect(killsAfterStart).toBeGreaterThan(5);

      // No workspace is the pointer of two brands; a ready brand points at a ready workspace.
      const pointers = rows.map((row) => row.subWorkspaceId).filter((id): id is string => id !== null);
      expect(new Set(pointers).size).toBe(pointers.length);
      const dump = await sim.dump();
      const children = dump.workspaces.filter((workspace) => workspace.parent_id === PARENT);
      const byId = new Map(children.map((workspace) => [workspace.id, workspace]));
      for (const row of rows.filter((brand) => brand.provisioningStatus === "ready")) {
        expect(row.subWorkspaceId).not.toBeNull();
        expect(byId.get(row.subWorkspaceId!)?.status).toBe("created");
      }

      // Every workspace we created is claimed (a pointer) or empty; no brand has two workspaces
      // holding projects.
      const projectsIn = (workspaceId: string) =>
        dump.projects.filter((project) => project.workspace_id === workspaceId).length;
      const claimed = new Set(pointers);
      for (const workspace of children) {
        if (!claimed.has(workspace.id)) expect(projectsIn(workspace.id)).toBe(0);
      }
      for (const row of rows) {
        const withProjects = children.filter(
          (workspace) => workspace.title === row.name && projectsIn(workspace.id) > 0,
        );
        expect(withProjects.length).toBeLessThanOrEqual(1);
        if (withProjects.length === 1) expect(withProjects[0]!.id).toBe(row.subWorkspaceId);
      }
    },
  );
});
