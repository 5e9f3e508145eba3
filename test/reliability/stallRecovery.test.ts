import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brands, jobs } from "../../src/db/schema.ts";
import { DEFAULT_STALL_GRACE_MS } from "../../src/jobs/reconciler.ts";
import { ManualClock } from "../support/manualClock.ts";
import { observe, startWorkerCrashWorld, type WorkerCrashWorld } from "../support/workerCrashWorld.ts";

/**
 * Stall recovery: a worker SIGKILLed in the middle of a hop leaves a lease
 * and a pg-boss message that still reads `active` (pg-boss would expire it only after 15 min).
 * The reconciler must hand the job to another worker within the stall grace after the lease
 * expires — one reconciler period later at the latest — not a quarter of an hour later.
 */
let w: WorkerCrashWorld;

beforeAll(async () => {
  w = await startWorkerCrashWorld({ settleMode: "reads", settleReads: 1 });
});
afterAll(() => w?.close());

describe("a worker killed in the middle of a hop", () => {
  it(
    "its job is redelivered once the lease is past the stall grace, and the brand gets ready",
    { timeout: 300_000 },
    async () => {
      const { brandId, jobId } = await w.createBrand("Stalled brand");
      // The hop's status read is held upstream for ten minutes: the worker dies in the middle of it.
      await w.sim.control("/faults", {
        match: { method: "GET", pathPattern: "/status$" },
        action: { delayMs: 600_000 },
        times: 1,
      });
      const worker = w.spawnWorker();
      await observe("the status read reaches the simulator", async () =>
        w.sim.simulator.faults.size === 0 ? true : undefined,
      );
      await observe("the hop takes its lease", async () => {
        const [row] = await w.db.db.select().from(jobs).where(eq(jobs.id, jobId));
        return row?.leaseToken && row.leaseExpiresAt ? row : undefined;
      });
      worker.child.kill("SIGKILL");
      await worker.exited;

      // The dead worker's pg-boss message still reads active, and will for 15 minutes.
      const active = await w.db.db.execute<{ n: number }>(
        `select count(*)::int as n from pgboss.job where state = 'active' and data->>'jobId' = '${jobId}'`,
      );
      expect(active.rows[0]!.n).toBe(1);

      // Time passes for the dead worker's lease only (its message keeps reading active, as it would
      // for 15 minutes): the lease expired just under, then just over, the stall grace before the
      // instant the reconciler is given, whatever time the statements in between take.
      const at = new Date();
      await w.expireLeasesAgo(DEFAULT_STALL_GRACE_MS - 1_000, at);
      expect((await w.reconcilerAt(new ManualClock(at)).run()).redelivered).toBe(0);
      await w.expireLeasesAgo(DEFAULT_STALL_GRACE_MS + 1_000, at);
      expect(await w.reconcilerAt(new ManualClock(at)).run()).toMatchObject({ redelivered: 1, failed: 0 });

      // Another worker picks it up and the brand gets ready with its market.
      const next = w.spawnWorker();
      const ready = await observe("the brand gets ready after the redelivery", async () => {
        const [brand] = await w.db.db.select().from(brands).where(eq(brands.id, brandId));
        return brand?.provisioningStatus === "ready" && (await w.liveJobs()) === 0 ? brand : undefined;
      });
      next.child.kill("SIGTERM");
      await next.exited;
      const projects = (await w.sim.dump()).projects.filter(
        (project) => project.workspace_id === ready.subWorkspaceId,
      );
      expect(projects).toHaveLength(1);
    },
  );
});
