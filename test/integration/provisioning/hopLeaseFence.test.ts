import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { claimJobLease } from "../../../src/db/jobs/claimJobLease.ts";
import type { ServiceEvents } from "../../../src/observability/events.ts";
import {
  type AsyncProvisioningWorld,
  startAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { HELD_UNTIL_RELEASED_MS, UM } from "../../support/simulator.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * A late copy of a `provision-workspace` hop: after its timeout (and a grace) the runner lets go
 * of the lease while the hop may still be waiting on the gateway. The attempt id cannot tell two
 * deliveries of the same hop apart, so T4, T5 and the cleanup check the lease first, and the hop's
 * gateway calls carry the job's abort signal. Real API, worker, gateway client and simulator;
 * the ManualClock; the slow upstream is a simulator delay fault that holds the status read until
 * the test releases it, so the take-over always lands inside the read, however loaded the machine.
 */
let w: AsyncProvisioningWorld;
const finished: ServiceEvents["job.finished"][] = [];
beforeAll(async () => {
  w = await startAsyncProvisioningWorld();
  w.t.events.on("job.finished", (event) => finished.push(event));
});
afterAll(async () => {
  await w.close();
});

const STATUS_PATH = `${UM}/v1/workspaces/[^/]+/status$`;
const LEASE_TTL_MS = 5 * 60_000;

beforeEach(async () => {
  w.sim.release();
  await w.sim.control("/faults", undefined, "DELETE");
  await w.setSettings({ settleMode: "reads", settleReads: 0 });
  w.attempts.length = 0;
  await w.drain();
  await w.sim.clearCalls();
  finished.length = 0;
});

async function createAsync() {
  const response = await w.call("POST", w.brandsUrl(), {
    name: `Fenced ${randomUUID().slice(0, 8)}`,
    domain: "brand.example",
    semrushMarket: { market: "US", languageCode: "en" },
    async: true,
  });
  expect(response.status).toBe(202);
  return { brandId: response.body.id as string, jobId: response.body.jobId as string };
}

/** Another worker, whose clock is past this lease's expiry, claims the job out from under the hop. */
async function takeOver(jobId: string): Promise<string> {
  const thief = randomUUID();
  const later = new Date(w.clock.now().getTime() + LEASE_TTL_MS + 1);
  const claimed = await claimJobLease(w.t.db.db, {
    jobId,
    leaseToken: thief,
    now: later,
    ttlMs: LEASE_TTL_MS,
  });
  expect(claimed).toBeDefined();
  return thief;
}

/** The next status read waits in the simulator until `w.sim.release()`. */
async function holdNextStatusRead(): Promise<void> {
  await w.sim.control("/faults", {
    match: { method: "GET", pathPattern: STATUS_PATH },
    action: { delayMs: HELD_UNTIL_RELEASED_MS },
    times: 1,
  });
}

async function upstreamCallsFor(workspaceId: string): Promise<string[]> {
  return (await w.sim.calls())
    .map((call) => `${call.method} ${call.path}`)
    .filter((call) => call.includes(workspaceId) && !call.endsWith("/status"));
}

describe("a hop whose lease was taken over", () => {
  it("does not promote (T4) a workspace that turned ready while it waited on the status read", async () => {
    const { brandId, jobId } = await createAsync();
    await holdNextStatusRead();
    const round = w.pollOnce();
    // T2 recorded the candidate and the hop is now in its status read, which the simulator holds.
    await waitFor(() => w.sim.held() === 1, { what: "the status read held" });
    const candidate = (await w.brand(brandId)).provisioningCandidateWorkspaceId!;
    expect(candidate).not.toBeNull();
    const thief = await takeOver(jobId);
    w.sim.release();
    await round;

    expect(await w.brand(brandId)).toMatchObject({
      provisioningStatus: "pending",
      subWorkspaceId: null,
      provisioningCandidateWorkspaceId: candidate,
    });
    expect(w.attempts).toEqual([]);
    expect(await w.job(jobId)).toMatchObject({ status: "IN_PROGRESS", leaseToken: thief, nextJobId: null });
    expect(finished.map((event) => event.outcome)).toEqual(["lease_lost"]);
    // Nothing emptied: the candidate belongs to the delivery holding the lease now.
    expect(await upstreamCallsFor(candidate)).toEqual([]);
  });

  it("does not fail the attempt (T5) nor empty the candidate when the settle budget ran out", async () => {
    await w.setSettings({ settleReads: 100_000 });
    const { brandId, jobId } = await createAsync();
    await w.pollOnce();
    const [, second] = await w.lineage(jobId);
    const candidate = (await w.brand(brandId)).provisioningCandidateWorkspaceId!;
    expect(second!.metadata).toMatchObject({ candidateWorkspaceId: candidate, freshlyCreated: true });
    w.clock.advance(10 * 60_000); // past the settle budget: this hop would fail the attempt and clean up
    await w.sim.clearCalls();
    finished.length = 0;
    await holdNextStatusRead();
    await w.makeDue();
    const round = w.pollOnce();
    await waitFor(() => w.sim.held() === 1, { what: "the status read held" });
    expect((await w.job(second!.id)).leaseToken).not.toBeNull();
    const thief = await takeOver(second!.id);
    w.sim.release();
    await round;

    expect(await w.brand(brandId)).toMatchObject({
      provisioningStatus: "pending",
      provisioningError: null,
      subWorkspaceId: null,
    });
    expect(w.attempts).not.toContain("failed");
    expect(await w.job(second!.id)).toMatchObject({ status: "IN_PROGRESS", leaseToken: thief });
    expect(finished.map((event) => event.outcome)).toEqual(["lease_lost"]);
    expect(await upstreamCallsFor(candidate)).toEqual([]);
  });
});

describe("a hop past its timeout", () => {
  it("stops waiting on a slow status read at once: no promote, the lease released for a retry", async () => {
    const { brandId, jobId } = await createAsync();
    await holdNextStatusRead();
    const round = w.pollOnce();
    // The status read reached the simulator, which holds it until the test releases it.
    await waitFor(() => w.sim.held() === 1, { what: "the status read held" });
    expect((await w.brand(brandId)).provisioningCandidateWorkspaceId).not.toBeNull();
    w.clock.advance(4 * 60_000); // the handler timeout: the runner aborts the hop's signal
    // Only the abort can end the round: the upstream never answers while the read is held.
    await round;
    expect(w.sim.held()).toBe(1);
    expect(await w.brand(brandId)).toMatchObject({ provisioningStatus: "pending", subWorkspaceId: null });
    expect(await w.job(jobId)).toMatchObject({ status: "IN_PROGRESS", leaseToken: null });
    expect(finished.map((event) => [event.outcome, event.code])).toEqual([["retried", "JOB_TIMEOUT"]]);
    expect(w.attempts).toEqual([]);
  });
});
