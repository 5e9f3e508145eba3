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
  type ServeProcess,
  startServe,
} from "../support/multiProcessWorkload.ts";
import {
  type CheckedOutRelease,
  checkOutPreviousRelease,
  resolvePreviousRelease,
} from "../support/previousRelease.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * A rolling deploy, halfway (docs/decisions/0032): the schema is already this checkout's (every
 * migration applied), the API is this checkout's `serve`, and the only worker is the previous
 * release's, from a git worktree of it. A brand created off the request path must still be
 * provisioned end to end by that old worker: sub-workspace, top-up, project, market row.
 */

let db: TestDatabase;
let sim: TestSimulator;
let serve: ServeProcess | undefined;
let previous: CheckedOutRelease | undefined;
let worker: ChildProcess | undefined;
let workerOutput = "";
let dataDir: string;

const CREDENTIAL_KEY = randomBytes(32).toString("base64");

function startPreviousWorker(root: string, env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [path.join(root, "bin/serenity.mjs"), "worker"], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  worker = child;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the previous worker did not start:\n${workerOutput}`)),
      80_000,
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
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-previous-worker-"));
  const shared = {
    DATABASE_URL: db.url,
    SEMRUSH_PROJECTS_BASE_URL: sim.url,
    SEMRUSH_USERS_BASE_URL: sim.url,
    SERENITY_DYNAMIC_ALLOCATION: "true",
    SERENITY_AUTH_SECRET: AUTH_SECRET,
    // One key for every process: the API seals the caller's credential, the old worker unseals it.
    SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY,
  };
  [serve] = await Promise.all([
    startServe({
      databaseUrl: db.url,
      simulatorUrl: sim.url,
      env: { SERENITY_CREDENTIAL_KEY: CREDENTIAL_KEY },
    }),
    startPreviousWorker(previous.root, { ...shared, SERENITY_DATA_DIR: dataDir }),
  ]);
}, 120_000);

afterAll(async () => {
  if (worker && worker.exitCode === null) {
    const exited = new Promise((resolve) => worker!.once("exit", resolve));
    worker.kill("SIGTERM");
    const killer = setTimeout(() => worker!.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  }
  await serve?.stop();
  await sim?.close();
  await db?.destroy();
  await previous?.remove();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

interface JobAnswer {
  status: "IN_PROGRESS" | "COMPLETED" | "FAILED";
  error?: { code: string } | null;
}

describe("the previous release's worker on this release's schema", () => {
  it("provisions an async brand create end to end: sub-workspace, project, market", async () => {
    const { orgId, token } = await prepareOrg(serve!.url);
    const created = await api<{ id: string; jobId: string }>(
      serve!.url,
      token,
      "POST",
      `/v2/orgs/${orgId}/brands`,
      {
        name: "Rolling",
        domain: "rolling.example",
        semrushMarket: { market: "US", languageCode: "en" },
        async: true,
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { id: brandId, jobId } = created.body;

    // Poll as a client does, on the job's observed state (the old worker moves it).
    let job: { status: number; body: JobAnswer } | undefined;
    for (;;) {
      job = await api<JobAnswer>(
        serve!.url,
        token,
        "GET",
        `/v2/orgs/${orgId}/brands/${brandId}/serenity/jobs/${jobId}`,
      );
      if (job.body.status !== "IN_PROGRESS") break;
      if (worker?.exitCode !== null)
        throw new Error(`the previous worker died:\n${workerOutput.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(job.body, `${previous!.chosenBy} (${previous!.commit.slice(0, 12)})`).toMatchObject({
      status: "COMPLETED",
    });

    const brand = await api<{ status: string; subWorkspaceId: string | null }>(
      serve!.url,
      token,
      "GET",
      `/v2/orgs/${orgId}/brands/${brandId}`,
    );
    expect(brand.body.status).toBe("active");
    const markets = await api<{ items: { geoTargetId: number; languageCode: string }[] }>(
      serve!.url,
      token,
      "GET",
      `/v2/orgs/${orgId}/brands/${brandId}/serenity/markets`,
    );
    expect(markets.body.items).toEqual([expect.objectContaining({ geoTargetId: 2840, languageCode: "en" })]);
    const dump = await sim.dump();
    const subWorkspaces = dump.workspaces.filter(
      (workspace) => workspace.parent_id === GOLD_PARENT_WORKSPACE_ID && workspace.title === "Rolling",
    );
    expect(subWorkspaces.map((workspace) => workspace.id)).toEqual([brand.body.subWorkspaceId]);
    expect(
      dump.projects.filter((project) => project.workspace_id === brand.body.subWorkspaceId),
    ).toHaveLength(1);
    // The old worker ran it: this checkout's API process has no worker.
    expect(workerOutput).toContain(jobId);
  }, 90_000);
});
