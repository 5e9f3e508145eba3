import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";

import type { GatewayClient } from "../../src/gateway/gatewayClient.ts";
import type { UpstreamReconciler } from "../../src/operations/upstreamReconciler.ts";
import type { Services } from "../../src/runtime/services.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { apiProcessSide, letLeasesExpire } from "./apiProcessSide.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { type RestartableSimulator, startRestartableSimulator } from "./restartableSimulator.ts";
import { waitFor } from "./wait.ts";
import { spawnWorker, type WorkerProcess } from "./workerProcess.ts";

export const PARENT = GOLD_PARENT_WORKSPACE_ID;
export const POOL = { projects: 13, prompts: 800 };
export const OPERATOR_TOKEN = "fault-operator-token";

/**
 * The fault harness's world (test/reliability): a test database, the simulator as a real process
 * that can be crashed and restarted from its dump (gold pool 13 / 800, metered), allocation on,
 * the services an API process would use (brands are created the way the API creates them), real
 * `serenity worker` processes, and an in-process upstream reconciler to observe and reconcile with.
 */
export interface FaultWorld {
  db: TestDatabase;
  sim: RestartableSimulator;
  services: Services;
  /** The gateway client the services use (real HTTP to the simulator), to act upstream as another process would. */
  gateway: GatewayClient;
  orgId: string;
  org: { id: string; parentWorkspaceId: string };
  reconciler: UpstreamReconciler;
  spawnWorker(env?: Record<string, string>): WorkerProcess;
  createBrand(
    name: string,
    market?: { market: string; languageCode: string },
  ): Promise<{ brandId: string; jobId: string }>;
  /** Moves every held job lease an hour into the past (only while no worker runs). */
  letLeasesExpire(): Promise<void>;
  /** Until a project create has reached the simulator (a fault is timed to land mid market creation). */
  untilProjectCreateUpstream(): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultWorld(settings: Record<string, unknown> = {}): Promise<FaultWorld> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "serenity-fault-"));
  const db = await createTestDatabase();
  const sim = await startRestartableSimulator({ seed: "gold", settings: { settleReads: 0, ...settings } });
  const side = apiProcessSide(db, sim.url);
  const { orgId, createBrand } = await side.orgWithUser("Fault org", PARENT);

  return {
    db,
    sim,
    services: side.services,
    gateway: side.gateway,
    orgId,
    org: { id: orgId, parentWorkspaceId: PARENT },
    reconciler: side.reconciler,
    spawnWorker: (env = {}) =>
      spawnWorker({
        ...side.workerEnv(dataDir),
        SERENITY_DYNAMIC_ALLOCATION: "true",
        SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "0",
        ...env,
      }),
    createBrand,
    letLeasesExpire: () => letLeasesExpire(db),
    untilProjectCreateUpstream: () =>
      waitFor(
        async () =>
          (await sim.control<{ method: string; path: string }[]>("/calls")).some(
            (call) => call.method === "POST" && /\/projects$/.test(call.path),
          ),
        { timeoutMs: 300_000, what: "a project create upstream" },
      ),
    async close() {
      await side.gateway.close();
      await sim.close();
      await db.destroy();
    },
  };
}
