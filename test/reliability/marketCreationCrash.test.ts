import { afterAll, beforeAll, describe, it } from "vitest";

import { type FaultWorld, OPERATOR_TOKEN, POOL, startFaultWorld } from "../support/faultWorld.ts";
import { expectInvariants, liveJobCount } from "../support/reliabilityInvariants.ts";
import { waitFor } from "../support/wait.ts";
import type { WorkerProcess } from "../support/workerProcess.ts";

/**
 * A real SIGKILL of the worker during market creation (the pattern of workerCrashWorld.ts): once a
 * project create has reached upstream the worker dies; a second worker takes the jobs over once
 * their leases have expired (moved into the past: no waiting for a TTL) and its job reconciler has
 * handed them on (every 250 ms here: at the 60 s default the test would sit a minute waiting for
 * the first pass, which proves nothing more). When every job has ended,
 * ONE upstream reconciler pass (grace 0: nothing is in flight any more) must leave the invariants
 * holding.
 */
describe("a worker killed during market creation", () => {
  let world: FaultWorld;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    world = await startFaultWorld({ latencyMs: 50 });
  });
  afterAll(async () => {
    for (const worker of workers) {
      worker.child.kill("SIGKILL");
      await worker.exited;
    }
    await world?.close();
  });

  it(
    "recovers: every job terminal, and after one reconciler pass zero orphans, the pool conserved, brands consistent",
    { timeout: 900_000 },
    async () => {
      const first = world.spawnWorker();
      workers.push(first);
      await first.started;
      for (let i = 0; i < 4; i++) await world.createBrand(`Crash ${i}`);
      await world.untilProjectCreateUpstream();
      first.child.kill("SIGKILL");
      await first.exited;
      await world.letLeasesExpire();

      const second = world.spawnWorker({ SERENITY_JOB_RECONCILE_INTERVAL_MS: "250" });
      workers.push(second);
      await second.started;
      await waitFor(async () => (await liveJobCount(world.db)) === 0, {
        timeoutMs: 600_000,
        what: "every job terminal",
      });
      second.child.kill("SIGTERM");
      await second.exited;

      await world.reconciler.reconcileOrg(world.org, OPERATOR_TOKEN, { graceMs: 0 });
      await expectInvariants(world.db, {
        orgId: world.orgId,
        parentWorkspaceId: world.org.parentWorkspaceId,
        dump: await world.sim.dump(),
        observation: await world.reconciler.observe(world.org, OPERATOR_TOKEN),
        pool: POOL,
      });
    },
  );
});
