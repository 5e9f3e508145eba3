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
 * real `serenity worker` process is SIGKILLed and restarted, 50 kills in all. Then a last worker
 * drains. Every brand must end `ready` or `failed`; no brand may have two workspaces, no
 * workspace two brands; every workspace we created under the parent is claimed (a brand's
 * pointer) or empty.
 *
 * The kills land where they are meant to by construction, never by timing: a start-up kill fires
 * before the worker says it started; a mid-work kill waits until the database shows a lease this
 * worker holds (a handler running) and fires a random moment after, and it counts as mid-work
 * only when the database still shows that lease after the process died. The simulator answers
 * every call 200 ms late and settles a workspace after 6 status reads (one per hop), so there is
 * always work in flight to kill, however slow or fast the machine is. Between kills, time passes
 * for the dead worker's claims by one UPDATE each instead of sleeping (`letLeasesExpire`) and the
 * reconciler runs on a ManualClock past the stall grace, so the next worker picks the work up.
 * Replay a run with CRASH_SEED=<seed> (printed with the summary).
 */
const BRANDS = 20;
const KILLS = 50;
/** Every fifth kill lands during start-up (migrations, queue start); the rest mid-work. */
const STARTUP_KILL_EVERY = 5;
/** A hang guard, not an assertion on speed: how long to wait for an observed state. */
const OBSERVE_DEADLINE_MS = 90_000;
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
  // Work that outlasts the kill phase on any machine: every upstream call takes 200 ms (so a hop
  // holds its lease for a while), and a workspace settles after 6 status reads (6 hops).
  await sim.control("/settings", { settleMode: "reads", settleReads: 6, latencyMs: 200 });
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

function spawnWorker(concurrency: number): RunningWorker {
  const args = [
    "bin/serenity.mjs",
    "worker",
    "--concurrency",
    String(concurrency),
    "--shutdown-grace-ms",
    "2000",
  ];
  const child = spawn(process.execPath, args, {
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
  const outcome = await services.brands.createRequested(
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
 * reconciler, to pg-boss's own maintenance and to the next claimant. Nothing else moves. Only
 * called while no worker runs, so every lease it moves belongs to a dead process.
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

/**
 * Lease tokens held right now (unexpired) on a job's first delivery: a handler running in the
 * live worker. Aiming only at first deliveries kills every job at most once mid-work, so the
 * crashes test convergence, not the attempt limit (a job that keeps dying is spent by design).
 */
async function heldFirstLeases(): Promise<string[]> {
  const result = await db.db.execute<{ token: string }>(
    sql`select lease_token::text as token from ${jobs} where status = 'IN_PROGRESS' and attempts = 1 and lease_token is not null and lease_expires_at > now()`,
  );
  return result.rows.map((row) => row.token);
}

/** How many of these leases the database still shows on IN_PROGRESS records. */
async function stillHeld(tokens: string[]): Promise<number> {
  if (tokens.length === 0) return 0;
  const result = await db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from ${jobs} where status = 'IN_PROGRESS' and lease_token::text = any(string_to_array(${tokens.join(",")}, ','))`,
  );
  return result.rows[0]!.n;
}

async function diagnose() {
  const jobRows = await db.db.execute(
    sql`select type, status, attempts, error->>'code' as code, lease_expires_at, updated_at from ${jobs} order by updated_at`,
  );
  const brandRows = await db.db.execute(sql`select name, provisioning_status from ${brands}`);
  const messages = await db.db.execute(
    sql`select state, count(*)::int as n, min(start_after) as first, max(start_after) as last from pgboss.job group by state`,
  );
  return { now: new Date(), jobs: jobRows.rows, brands: brandRows.rows, messages: messages.rows };
}

/** Polls `probe` until it returns a value, or gives up at the deadline (a hang guard). */
async function observe<T>(probe: () => Promise<T | undefined>, deadlineMs = OBSERVE_DEADLINE_MS) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await pause(20);
  }
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
    // A hang guard, not a speed target: 50 worker start-ups take ~2.5 min on an idle 2-core
    // machine and several times that on a loaded one.
    { timeout: 15 * 60_000 },
    async () => {
      const started = Date.now();
      let startupKills = 0;
      let midWorkKills = 0;
      let missedMidWork = 0;
      let created = 0;
      await services.jobs.queue.start();
      for (; created < BRANDS / 2; created++) await createBrand(created);

      for (let kill = 0; kill < KILLS; kill++) {
        // The other half of the brands arrive while workers keep dying.
        while (created < BRANDS && created < BRANDS / 2 + Math.floor(kill / 2)) await createBrand(created++);
        // One job at a time, so a kill lands on the one job it aimed at.
        const worker = spawnWorker(1);
        if (kill % STARTUP_KILL_EVERY === 0) {
          // During start-up: a random moment before the worker reports it started.
          await Promise.race([pause(random() * 1_500), worker.started, worker.exited]);
          if (!worker.hasStarted()) startupKills += 1;
          worker.child.kill("SIGKILL");
        } else {
          // Mid-work: once this worker holds a lease, a random moment (< one upstream call) into
          // the handler's work.
          await Promise.race([worker.started, worker.exited]);
          const tokens = await observe(async () => {
            const held = await heldFirstLeases();
            return held.length > 0 ? held : undefined;
          });
          if (!tokens) console.info("no work in flight", JSON.stringify(await diagnose()));
          expect(tokens, `seed ${seed}: kill ${kill} found no work in flight`).toBeDefined();
          await pause(random() * 100);
          worker.child.kill("SIGKILL");
          await worker.exited;
          if ((await stillHeld(tokens!)) > 0) midWorkKills += 1;
          else missedMidWork += 1;
        }
        await worker.exited;
        // Time passes for the dead worker's claims; the reconciler (past the stall grace) hands
        // what nothing will deliver to the next worker.
        await letLeasesExpire();
        await reconcilerAt(new ManualClock(new Date(Date.now() + 3 * 60_000))).run();
      }
      while (created < BRANDS) await createBrand(created++);
      const killPhaseMs = Date.now() - started;

      // Recovery: a last worker drains everything.
      const last = spawnWorker(10);
      await observe(async () =>
        (await unsettledBrands()) === 0 && (await liveJobs()) === 0 ? true : undefined,
      );
      // Anything still pending now is a stuck attempt: the reconciler past the stale threshold fails it.
      const stale = await reconcilerAt(new ManualClock(new Date(Date.now() + 11 * 60_000))).run();
      last.child.kill("SIGTERM");
      await last.exited;

      const rows = await db.db.select().from(brands);
      const statuses = rows.map((row) => row.provisioningStatus);
      const summary = {
        seed,
        killPhaseMs,
        startupKills,
        midWorkKills,
        missedMidWork,
        stale: stale.steps["provisioning.staleAttempts"],
        ready: statuses.filter((status) => status === "ready").length,
        failed: statuses.filter((status) => status === "failed").length,
      };
      console.info("crash run", JSON.stringify(summary));

      // Every brand ready or failed.
      expect(rows).toHaveLength(BRANDS);
      expect(
        statuses.every((status) => status === "ready" || status === "failed"),
        `seed ${seed}`,
      ).toBe(true);
      // Crashes alone never fail an attempt, unless one of its jobs kept dying until its
      // deliveries were spent (then the job is FAILED and the attempt went stale).
      for (const row of rows.filter((brand) => brand.provisioningStatus === "failed")) {
        const spent = await db.db.execute<{ n: number }>(
          sql`select count(*)::int as n from ${jobs} where brand_id = ${row.id} and status = 'FAILED' and error->>'code' in ('JOB_FAILED', 'JOB_STALLED')`,
        );
        expect(
          spent.rows[0]!.n,
          `seed ${seed}: brand ${row.name} failed without a spent job`,
        ).toBeGreaterThan(0);
      }
      // The run did crash workers mid-work: most mid-work kills found the lease they aimed at
      // still held by the dead process (a handler was running when it died).
      expect(midWorkKills, `seed ${seed}`).toBeGreaterThan(KILLS / 2);

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
