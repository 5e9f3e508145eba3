import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { allocationLedger, brands, jobs, markets } from "../../src/db/schema.ts";
import { type FaultWorld, OPERATOR_TOKEN, PARENT, POOL, startFaultWorld } from "../support/faultWorld.ts";
import { expectInvariants, liveJobCount, orphansOf } from "../support/reliabilityInvariants.ts";
import { catalogueLanguageId } from "../support/simulator.ts";
import { waitFor } from "../support/wait.ts";
import type { WorkerProcess } from "../support/workerProcess.ts";

/**
 * The upstream reconciler reclaiming, in real time (leftovers "reclaimed within one
 * reconciler period after the fault … in a real-time integration test with a short period"). Real
 * `serenity worker` processes against the simulator as a process; three leftovers that nothing but
 * the reconciler takes, each standing for a real event:
 *
 * - **A failed rollback** (ADR 0015), by a genuine fault path: a brand's market creation
 *   fails for good after its project was made upstream (publish refused, 422), and the rollback's
 *   DELETE of the project keeps failing (upstream answering 500 to deletes until the job has
 *   ended). The reservation is kept `creating` with its project id; the job is over, so no
 *   delivery comes back for it.
 * - **A lost record**: a database restored from a backup taken before a brand's market was made,
 *   while upstream kept the market's project. The only record such a restore takes away here is
 *   the market row (its model cache goes with it), deleted as the restore would. The reconciler
 *   gives the row back (re-attach, ADR 0016 addendum): the project is customer data, never deleted.
 * - **A racing process's duplicate** (what a race between processes left before the brand lease): an
 *   extra sub-workspace titled with a brand's name, given units and holding a project named as
 *   Serenity names a market's, made over HTTP through the real gateway client as a racing
 *   activate + create market did.
 *
 * The worker that provisions runs with the reconciler off; before a second worker with a short
 * period (500 ms, grace 1 s) starts, the observation shows the orphans and the kept reservation;
 * then, by observed state only (deadlines are hang guards), they are all reclaimed with ledger
 * rows `reconcile`, and the harness's invariants hold. With the reconciler off the wait for zero
 * orphans runs into its guard (checked with SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS=0).
 */
const PROJECT_DELETE = { method: "DELETE", pathPattern: "/projects/[^/]+$" };
const PUBLISH = { method: "POST", pathPattern: "/publish$" };

describe("the upstream reconciler in a worker, in real time", () => {
  let world: FaultWorld;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    world = await startFaultWorld();
  });
  afterAll(async () => {
    for (const worker of workers) {
      worker.child.kill("SIGKILL");
      await worker.exited;
    }
    await world?.close();
  });

  const settled = () =>
    waitFor(async () => (await liveJobCount(world.db)) === 0, {
      timeoutMs: 300_000,
      what: "every job terminal",
    });
  const pendingRollbacks = () =>
    world.db.db
      .select({ brandId: markets.brandId, projectId: markets.projectId })
      .from(markets)
      .where(sql`${markets.status} = 'creating' and ${markets.projectId} is not null`);
  const subWorkspaceOf = async (brandId: string) =>
    (await world.db.db.select().from(brands).where(eq(brands.id, brandId)))[0]!.subWorkspaceId!;

  it(
    "reclaims a failed rollback and a racing duplicate, and re-attaches a project a restore forgot, within its period",
    { timeout: 900_000 },
    async () => {
      const provisioner = world.spawnWorker();
      workers.push(provisioner);
      await provisioner.started;

      // 1. The failed rollback: publish refused for good, every project delete failing meanwhile.
      await world.sim.control("/faults", {
        match: PUBLISH,
        action: { status: 422, body: { message: "initial_publish_failed" } },
        times: 1_000,
      });
      await world.sim.control("/faults", {
        match: PROJECT_DELETE,
        action: { status: 500, body: { message: "internal error" } },
        times: 1_000,
      });
      const rolledBack = await world.createBrand("Reclaim Rollback");
      await settled();
      await world.sim.control("/faults", undefined, "DELETE");
      const failedJobs = await world.db.db
        .select({ status: jobs.status })
        .from(jobs)
        .where(and(eq(jobs.brandId, rolledBack.brandId), eq(jobs.status, "FAILED")));
      expect(failedJobs.length).toBeGreaterThan(0);
      const kept = await pendingRollbacks();
      expect(kept.map((row) => row.brandId)).toEqual([rolledBack.brandId]);
      const keptProjectId = kept[0]!.projectId!;
      expect((await world.sim.dump()).projects.map((project) => String(project.id))).toContain(keptProjectId);

      // 2. and 3.: two brands provisioned cleanly, then their leftovers.
      const restored = await world.createBrand("Reclaim Restored");
      const raced = await world.createBrand("Reclaim Raced");
      await settled();
      provisioner.child.kill("SIGTERM");
      await provisioner.exited;

      const restoredWorkspace = await subWorkspaceOf(restored.brandId);
      const forgotten = await world.db.db
        .delete(markets)
        .where(eq(markets.brandId, restored.brandId))
        .returning({ projectId: markets.projectId });
      expect(forgotten).toHaveLength(1);

      const duplicate = await world.gateway.users.createSubWorkspace(OPERATOR_TOKEN, PARENT, {
        title: "Reclaim Raced",
        resources: { projects: 1, prompts: 50 },
      });
      await world.gateway.users.getStatus(OPERATOR_TOKEN, duplicate.id);
      await world.gateway.projects.createProject(OPERATOR_TOKEN, duplicate.id, {
        name: "Reclaim Raced FR fr",
        brandNameDisplay: "Reclaim Raced",
        brandNames: ["Reclaim Raced"],
        domain: "reclaim-raced.example",
        countryCode: "FR",
        locationId: 2250,
        locationName: "France",
        languageId: catalogueLanguageId("en"),
      });
      expect(await subWorkspaceOf(raced.brandId)).not.toBe(duplicate.id);

      // Before the reconciling worker: the orphans are there, and so is the kept reservation.
      const before = await world.reconciler.observe(world.org, OPERATOR_TOKEN);
      expect(orphansOf(before).sort()).toEqual(
        [
          `subWorkspace ${duplicate.id} "Reclaim Raced" (orphan)`,
          `project ${forgotten[0]!.projectId} "Reclaim Restored US en" in ${restoredWorkspace}`,
        ].sort(),
      );
      expect(await pendingRollbacks()).toHaveLength(1);

      const reconciling = world.spawnWorker({
        SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "500",
        SERENITY_UPSTREAM_RECONCILE_GRACE_MS: "1000",
        SERENITY_UPSTREAM_TOKEN: OPERATOR_TOKEN,
      });
      workers.push(reconciling);
      await reconciling.started;
      await waitFor(
        async () =>
          orphansOf(await world.reconciler.observe(world.org, OPERATOR_TOKEN)).length === 0 &&
          (await pendingRollbacks()).length === 0,
        { timeoutMs: 60_000, what: "zero orphans and no pending rollback" },
      );
      reconciling.child.kill("SIGTERM");
      await reconciling.exited;

      // The lost market is tracked again, on the project it had, which is still upstream.
      const back = await world.db.db
        .select({ projectId: markets.projectId, status: markets.status })
        .from(markets)
        .where(eq(markets.brandId, restored.brandId));
      expect(back).toEqual([{ projectId: forgotten[0]!.projectId, status: "ready" }]);

      // Each reclaim is on the ledger as `reconcile`: a project deleted in the two other places.
      const ledger = await world.db.db
        .select()
        .from(allocationLedger)
        .where(and(eq(allocationLedger.orgId, world.orgId), eq(allocationLedger.reason, "reconcile")));
      const deletedIn = ledger
        .filter((row) => row.outcome === "projectDeleted")
        .map((row) => row.subWorkspaceId);
      expect([...new Set(deletedIn)].sort()).toEqual(
        [await subWorkspaceOf(rolledBack.brandId), duplicate.id].sort(),
      );
      expect(deletedIn).not.toContain(restoredWorkspace);
      // The duplicate was released too (a second `reconcile` row for it), and is parked now.
      expect(ledger.filter((row) => row.subWorkspaceId === duplicate.id).length).toBeGreaterThan(1);
      const dump = await world.sim.dump();
      expect(dump.projects.map((project) => String(project.id))).not.toContain(keptProjectId);
      expect(dump.projects.map((project) => String(project.id))).toContain(forgotten[0]!.projectId);

      await expectInvariants(world.db, {
        orgId: world.orgId,
        parentWorkspaceId: world.org.parentWorkspaceId,
        dump,
        observation: await world.reconciler.observe(world.org, OPERATOR_TOKEN),
        pool: POOL,
      });
    },
  );
});
