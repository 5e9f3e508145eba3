import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { jobs } from "../../src/db/schema.ts";
import { type FaultWorld, OPERATOR_TOKEN, POOL, startFaultWorld } from "../support/faultWorld.ts";
import { expectInvariants, liveJobCount, orphansOf } from "../support/reliabilityInvariants.ts";
import { waitFor } from "../support/wait.ts";
import type { WorkerProcess } from "../support/workerProcess.ts";

/**
 * A fault test: an upstream outage during market creation. The simulator
 * answers slowly, async brands with a market are provisioned by a real worker, and once a project
 * create has reached upstream the simulator is killed; it comes back from its dump once every live
 * job has met the outage. Whatever the jobs did about it, the worker's own upstream reconciler (a
 * short period and grace: the real-time test of spec/provisioning.md §9) must leave nothing behind.
 * Driven by observed state; the deadlines only guard against a hang.
 *
 * What this shows today: since the jobs retry transient failures and roll back by deleting their
 * half-made projects (docs/decisions/0015), the outage leaves no orphan for the reconciler to take —
 * the test passes with the reconciler off too (checked: SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS=0).
 * It holds the invariants after an outage. The reconciler's own reclaiming of leftovers it is
 * shown first: test/reliability/upstreamReclaim.test.ts in real time (a worker with a short
 * period; a failed rollback, a lost market row, a racing duplicate sub-workspace), and
 * test/integration/operations/upstreamReconciler.test.ts on a fake clock.
 */
describe("an upstream outage during market creation", () => {
  let world: FaultWorld;
  let worker: WorkerProcess;

  beforeAll(async () => {
    world = await startFaultWorld({ latencyMs: 150 });
  });
  afterAll(async () => {
    worker?.child.kill("SIGKILL");
    await worker?.exited;
    await world?.close();
  });

  it(
    "ends with the pool conserved, zero orphans, every job terminal and every brand consistent with upstream",
    { timeout: 900_000 },
    async () => {
      worker = world.spawnWorker({
        SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "500",
        SERENITY_UPSTREAM_RECONCILE_GRACE_MS: "1000",
        SERENITY_UPSTREAM_TOKEN: OPERATOR_TOKEN,
      });
      await worker.started;
      for (let i = 0; i < 6; i++) await world.createBrand(`Outage ${i}`);

      // The outage starts once a project create has reached upstream (mid market creation).
      await world.untilProjectCreateUpstream();
      const crashedAt = new Date();
      await world.sim.crash();
      // It comes back once every live job has met it (touched since the crash) or ended.
      await waitFor(
        async () =>
          (
            await world.db.db.execute<{ n: number }>(
              sql`select count(*)::int as n from ${jobs} where status = 'IN_PROGRESS' and updated_at < ${crashedAt}`,
            )
          ).rows[0]!.n === 0,
        { timeoutMs: 300_000, what: "every live job meeting the outage" },
      );
      await world.sim.restart();

      await waitFor(async () => (await liveJobCount(world.db)) === 0, {
        timeoutMs: 600_000,
        what: "every job terminal",
      });
      // The worker's upstream reconciler (period 500 ms, grace 1 s) reclaims what is left.
      await waitFor(
        async () => orphansOf(await world.reconciler.observe(world.org, OPERATOR_TOKEN)).length === 0,
        { timeoutMs: 120_000, what: "zero orphans" },
      );
      worker.child.kill("SIGTERM");
      await worker.exited;

      await expectInvariants(world.db, {
        orgId: world.orgId,
        parentWorkspaceId: world.org.parentWorkspaceId,
        dump: await world.sim.dump(),
        observation: await world.reconciler.observe(world.org, OPERATOR_TOKEN),
        pool: POOL,
      });
      expect(world.sim.running()).toBe(true);
    },
  );
});
