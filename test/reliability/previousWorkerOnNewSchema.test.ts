import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import {
  api,
  AUTH_SECRET,
  prepareOrg,
  SERVE_START_GUARD_MS,
  type ServeProcess,
  startServe,
} from "../support/multiProcessWorkload.ts";
import {
  type CheckedOutRelease,
  checkOutPreviousRelease,
  migrationsOf,
  resolvePreviousRelease,
} from "../support/previousRelease.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";
import { spawnWorker, type WorkerProcess } from "../support/workerProcess.ts";

/**
 * A rolling deploy, halfway (docs/decisions/0032): the schema is already this checkout's (every
 * migration applied) and the processes are a mix of this release and the previous one (a git
 * worktree of it, `previousRelease.ts`, which knows fewer migrations than this checkout). Both
 * halves of the mix, each on its own database:
 * - this checkout's `serve` with only the previous release's worker: a brand created off the
 *   request path must still be provisioned end to end by that old worker;
 * - the previous release's `serve` with only this checkout's worker: the old API, on the new
 *   schema, creates the brand and its job; the new worker provisions it end to end.
 * End to end: sub-workspace, top-up, project, market row.
 */

let newSchemaOldWorker: TestDatabase;
let newSchemaOldServe: TestDatabase;
let sim: TestSimulator;
let serve: ServeProcess | undefined;
let previousServe: ServeProcess | undefined;
let previous: CheckedOutRelease | undefined;
let worker: ChildProcess | undefined;
let newWorker: WorkerProcess | undefined;
let workerOutput = "";
let dataDir: string;

const CREDENTIAL_KEY = randomBytes(32).toString("base64");

function startPreviousWorker(root: string, env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [path.join(root, "bin/serenity.mjs"), "worker"], {
    cwd: root,
    // Any free probe port: the default 8081 may be held by another process on the machine.
    env: { ...process.env, LOG_LEVEL: "info", SERENITY_WORKER_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  worker = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the previous worker did not start:\n${workerOutput}`)),
      SERVE_START_GUARD_MS,
    );
    const look = (chunk: Buffer) => {
      workerOutput += chunk.toString("utf8");
      if (workerOutput.includes("job worker started")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", look);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the previous worker exited (${code}):\n${workerOutput.slice(-3000)}`));
    });
  });
}

beforeAll(async () => {
  // Throws, never skips, when the history is missing (a shallow clone).
  const release = resolvePreviousRelease();
  previous = await checkOutPreviousRelease(release);
  // Old code on the new schema: without a migration it lacks, the test would prove nothing.
  if (!release.chosenBy.startsWith("SERENITY_PREVIOUS_REF")) {
    expect(migrationsOf(previous.root).length, release.chosenBy).toBeLessThan(migrationsOf(".").length);
  }
  [newSchemaOldWorker, newSchemaOldServe] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  sim = await startTestSimulator({ seed: "gold" });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-previous-worker-"));
  const shared = {
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SEMRUSH_USERS_BASE_URL: sim.url,
    SERENITY_DYNAMIC_ALLOCATION: "true",
    SERENITY_AUTH_SECRET: AUTH_SECRET,
    // One key for every process: the API seals the caller's credential, the old worker unseals it.
    SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY,
  };
  const root = previous.root;
  newWorker = spawnWorker(
    { ...shared, DATABASE_URL: newSchemaOldServe.url, SERENITY_DATA_DIR: path.join(dataDir, "new") },
    { keepOutput: true },
  );
  [serve, previousServe] = await Promise.all([
    startServe({
      databaseUrl: newSchemaOldWorker.url,
      simulatorUrl: sim.url,
      env: { SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY },
    }),
    startServe({
      databaseUrl: newSchemaOldServe.url,
      simulatorUrl: sim.url,
      env: { SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY },
      checkout: { bin: path.join(root, "bin/serenity.mjs"), cwd: root },
    }),
    startPreviousWorker(root, {
      ...shared,
      DATABASE_URL: newSchemaOldWorker.url,
      SERENITY_DATA_DIR: path.join(dataDir, "old"),
    }),
    newWorker.started,
  ]);
}, SERVE_START_GUARD_MS + 60_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once("exit", resolve));
    worker.kill("SIGTERM");
    const killer = setTimeout(() => worker!.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  }
  if (newWorker && newWorker.child.exitCode === null) {
    newWorker.child.kill("SIGTERM");
    await newWorker.exited;
  }
  await Promise.all([serve?.stop(), previousServe?.stop()]);
  await sim?.close();
  await Promise.all([newSchemaOldWorker?.destroy(), newSchemaOldServe?.destroy()]);
  await previous?.remove();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

interface JobAnswer {
  status: "IN_PROGRESS" | "COMPLETED" | "FAILED";
  error?: { code: string } | null;
}

/**
 * An async brand create through the API at `apiUrl`, polled as a client does until its job ends;
 * then the brand, its market and the simulator's workspaces and projects checked.
 */
async function provisionThrough(
  apiUrl: string,
  name: string,
  workerDied: () => string | undefined,
): Promise<{ jobId: string }> {
  const { orgId, token } = await prepareOrg(apiUrl);
  const created = await api<{ id: string; jobId: string }>(
    apiUrl,
    token,
    "POST",
    `/v2/orgs/${orgId}/brands`,
    {
      name,
      domain: `${name.toLowerCase()}.example`,
      semrushMarket: { market: "US", languageCode: "en" },
      async: true,
    },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const { id: brandId, jobId } = created.body;

  // Poll as a client does, on the job's observed state (the other release's worker moves it).
  let job: { status: number; body: JobAnswer } | undefined;
  for (;;) {
    job = await api<JobAnswer>(
      apiUrl,
      token,
      "GET",
      `/v2/orgs/${orgId}/brands/${brandId}/serenity/jobs/${jobId}`,
    );
    if (job.body.status !== "IN_PROGRESS") break;
    const died = workerDied();
    if (died) throw new Error(died);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(job.body, `${previous!.chosenBy} (${previous!.commit.slice(0, 12)})`).toMatchObject({
    status: "COMPLETED",
  });

  const brand = await api<{ status: string; subWorkspaceId: string | null }>(
    apiUrl,
    token,
    "GET",
    `/v2/orgs/${orgId}/brands/${brandId}`,
  );
  expect(brand.body.status).toBe("active");
  const markets = await api<{ items: { geoTargetId: number; languageCode: string }[] }>(
    apiUrl,
    token,
    "GET",
    `/v2/orgs/${orgId}/brands/${brandId}/serenity/markets`,
  );
  expect(markets.body.items).toEqual([expect.objectContaining({ geoTargetId: 2840, languageCode: "en" })]);
  const dump = await sim.dump();
  const subWorkspaces = dump.workspaces.filter(
    (workspace) => workspace.parent_id === GOLD_PARENT_WORKSPACE_ID && workspace.title === name,
  );
  expect(subWorkspaces.map((workspace) => workspace.id)).toEqual([brand.body.subWorkspaceId]);
  expect(dump.projects.filter((project) => project.workspace_id === brand.body.subWorkspaceId)).toHaveLength(
    1,
  );
  return { jobId };
}

describe("a rolling deploy on this release's schema", () => {
  it("the previous release's worker provisions what this release's API accepted", async () => {
    const { jobId } = await provisionThrough(serve!.url, "Rolling", () =>
      worker?.exitCode !== null ? `the previous worker died:\n${workerOutput.slice(-3000)}` : undefined,
    );
    // The old worker ran it: this checkout's API process has no worker.
    expect(workerOutput).toContain(jobId);
  }, 90_000);

  it("this release's worker provisions what the previous release's API accepted", async () => {
    const { jobId } = await provisionThrough(previousServe!.url, "Rollback", () =>
      newWorker!.child.exitCode !== null
        ? `this release's worker died:\n${newWorker!.output().slice(-3000)}`
        : undefined,
    );
    // This release's worker ran it: the previous release's API process has no worker.
    expect(newWorker!.output()).toContain(jobId);
  }, 90_000);
});
