import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import { findCredential } from "../../../src/db/credentials/findCredential.ts";
import { claimJobLease } from "../../../src/db/jobs/claimJobLease.ts";
import { completeJob } from "../../../src/db/jobs/completeJob.ts";
import { failJob } from "../../../src/db/jobs/failJob.ts";
import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { linkNextJob } from "../../../src/db/jobs/linkNextJob.ts";
import { saveJobCheckpoint } from "../../../src/db/jobs/saveJobCheckpoint.ts";
import { GatewayError } from "../../../src/gateway/errors.ts";
import { serviceErrorForGateway } from "../../../src/gateway/registryErrors.ts";
import { currentUpstreamScope } from "../../../src/gateway/upstreamScope.ts";
import { defineJobHandler, type JobContext } from "../../../src/jobs/handler.ts";
import { JobError } from "../../../src/jobs/jobError.ts";
import { JobRegistry } from "../../../src/jobs/registry.ts";
import { UNKNOWN_TYPE_REDELIVERY_MS } from "../../../src/jobs/runner.ts";
import { JobWorker } from "../../../src/jobs/worker.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, deferred, type JobWorld } from "../../support/jobWorld.ts";

let db: TestDatabase;
let h: JobWorld;
const ORG = randomUUID();
const BRAND = randomUUID();

type Behaviour = (ctx: JobContext) => Promise<Record<string, unknown>>;
const behaviours = new Map<string, Behaviour>();
const calls: { jobId: string; attempt: number; metadata: Record<string, unknown> }[] = [];

/** One registered type whose behaviour each test sets per job id (metadata.case). */
const scripted = defineJobHandler({
  type: "scripted",
  publicType: "scriptedJob",
  timeoutMs: 5_000,
  leaseTtlMs: 10_000,
  maxAttempts: 3,
  errorMessages: { CUSTOM_TERMINAL: "The custom step failed." },
  async handle(ctx) {
    calls.push({ jobId: ctx.job.id, attempt: ctx.attempt, metadata: { ...ctx.metadata } });
    const behaviour = behaviours.get(String(ctx.metadata.case));
    if (!behaviour) throw new Error(`no behaviour for ${String(ctx.metadata.case)}`);
    return behaviour(ctx);
  },
});
const follower = defineJobHandler({
  type: "follower",
  publicType: "followerJob",
  timeoutMs: 5_000,
  leaseTtlMs: 10_000,
  maxAttempts: 2,
  async handle(ctx) {
    const token = await ctx.credential();
    return { followed: true, tokenLength: token.length };
  },
});

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [scripted, follower]);
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

async function submit(
  metadata: Record<string, unknown>,
  options: { type?: string; token?: string; enqueue?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  const credentialId = options.token ? await h.credentials.seal("user-1", options.token) : null;
  await insertJob(db.db, {
    id,
    type: options.type ?? "scripted",
    orgId: ORG,
    brandId: BRAND,
    metadata,
    credentialId,
    createdBy: "user-1",
    now: h.clock.now(),
  });
  if (options.enqueue ?? true) await h.queue.enqueue(id);
  return id;
}

/** What a worker of another deployment needs: the world's, with its own registry given over it. */
function workerDeps() {
  return {
    db: db.db,
    clock: h.clock,
    logger: h.logger,
    events: h.events,
    registry: h.registry,
    queue: { ...h.queue, stop: async () => {} },
    credentials: h.credentials,
  };
}

function outcomesOf(type: string) {
  return h.finished.filter((event) => event.type === type).map((event) => event.outcome);
}

describe("lease claim", () => {
  it("two concurrent claims: exactly one wins", async () => {
    const id = await submit({ case: "none" }, { enqueue: false });
    const now = h.clock.now();
    const claims = await Promise.all(
      Array.from({ length: 5 }, () =>
        claimJobLease(db.db, { jobId: id, leaseToken: randomUUID(), now, ttlMs: 10_000 }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect((await h.job(id)).attempts).toBe(1);
  });

  it("a stale worker whose lease expired and was re-claimed cannot complete, fail, checkpoint or hand off", async () => {
    const id = await submit({ case: "none" }, { enqueue: false });
    const stale = randomUUID();
    const fresh = randomUUID();
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: stale, now: h.clock.now(), ttlMs: 10_000 }),
    ).toBeDefined();
    // Still leased: a second claim loses.
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: fresh, now: h.clock.now(), ttlMs: 10_000 }),
    ).toBeUndefined();
    h.clock.advance(10_001);
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: fresh, now: h.clock.now(), ttlMs: 10_000 }),
    ).toBeDefined();

    const now = h.clock.now();
    expect(
      await completeJob(db.db, { jobId: id, leaseToken: stale, result: { stale: true }, now }),
    ).toBeUndefined();
    expect(
      await failJob(db.db, {
        jobId: id,
        leaseToken: stale,
        error: { code: "X", message: "x", retryable: false },
        now,
      }),
    ).toBeUndefined();
    expect(
      await saveJobCheckpoint(db.db, { jobId: id, leaseToken: stale, patch: { stale: 1 }, now }),
    ).toBeUndefined();
    expect(await linkNextJob(db.db, { jobId: id, leaseToken: stale, nextJobId: randomUUID(), now })).toBe(
      false,
    );
    const row = await h.job(id);
    expect(row).toMatchObject({ status: "IN_PROGRESS", leaseToken: fresh, result: null, nextJobId: null });
    expect(row.metadata).toEqual({ case: "none" });

    expect(
      await completeJob(db.db, { jobId: id, leaseToken: fresh, result: { ok: true }, now }),
    ).toBeDefined();
  });
});

describe("the runner contract", () => {
  it("completes a job by compare-and-set and invalidates its credential", async () => {
    behaviours.set("ok", async (ctx) => ({
      echoed: ctx.metadata.value,
      token: (await ctx.credential()).length,
    }));
    const id = await submit({ case: "ok", value: 42 }, { token: "opaque-upstream-token-1" });
    expect(await h.worker().drain()).toBe(1);
    const row = await h.job(id);
    expect(row).toMatchObject({
      status: "COMPLETED",
      result: { echoed: 42, token: 23 },
      leaseToken: null,
      attempts: 1,
    });
    const credential = await findCredential(db.db, row.credentialId!);
    expect(credential?.sealed).toBeNull();
    expect(credential?.invalidatedAt).not.toBeNull();
  });

  it("drops duplicate deliveries: three messages, one handler run", async () => {
    const gate = deferred();
    let runs = 0;
    behaviours.set("dup", async () => {
      runs += 1;
      await gate.promise;
      return { done: true };
    });
    const id = await submit({ case: "dup" });
    await h.queue.enqueue(id);
    await h.queue.enqueue(id);
    const before = h.finished.length;
    const worker = h.worker({ batchSize: 10 });
    const round = worker.pollOnce();
    // Hold the first delivery inside its handler until both duplicates have lost the lease claim
    // (under load a fixed delay let the first one finish before the others were even loaded).
    await vi.waitFor(() => expect(h.finished.length - before).toBe(2), { timeout: 20_000, interval: 10 });
    gate.resolve();
    expect(await round).toBe(3);
    expect(await worker.drain()).toBe(0);
    expect(runs).toBe(1);
    expect((await h.job(id)).status).toBe("COMPLETED");
    const outcomes = h.finished
      .slice(before)
      .map((event) => event.outcome)
      .sort();
    expect(outcomes).toEqual(["completed", "lease_lost", "lease_lost"]);
    // A message delivered after completion is a duplicate of a finished job.
    await h.queue.enqueue(id);
    await worker.drain();
    expect(h.finished.at(-1)?.outcome).toBe("dropped_duplicate");
    expect(runs).toBe(1);
  });

  it("leaves a type it does not know untouched and hands it back to the queue for a worker that knows it", async () => {
    // A rolling upgrade: a newer deployment submitted a type this (older) worker has no handler for.
    const id = await submit({ case: "newer" }, { type: "newer-type", token: "opaque-token-newer" });
    const before = await h.job(id);
    expect(await h.worker().drain()).toBe(1);
    expect(outcomesOf("newer-type")).toEqual(["unknown_type"]);
    // Nothing about the record moved: no lease, no attempt, no error, the credential still sealed.
    const after = await h.job(id);
    expect(after).toMatchObject({ status: "IN_PROGRESS", attempts: 0, leaseToken: null, error: null });
    expect(after.updatedAt).toEqual(before.updatedAt);
    expect((await findCredential(db.db, after.credentialId!))?.sealed).not.toBeNull();
    // The delivery went back to the queue a little later, so the old worker does not spin on it.
    const pending = await h.pendingMessages(id);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.delayMs).toBeGreaterThan(UNKNOWN_TYPE_REDELIVERY_MS / 2);
    expect(await h.worker().drain()).toBe(0);

    // A newer worker on the same queue knows the type and runs it, with the job's credential.
    const newer = new JobRegistry().registerHandler(
      defineJobHandler({
        type: "newer-type",
        publicType: "newerJob",
        timeoutMs: 5_000,
        leaseTtlMs: 10_000,
        maxAttempts: 2,
        async handle(ctx) {
          return { ran: true, tokenLength: (await ctx.credential()).length };
        },
      }),
    );
    await h.makeDue();
    const newerWorker = new JobWorker(
      { ...workerDeps(), registry: newer },
      { listen: false, reconcileIntervalMs: 0 },
    );
    try {
      expect(await newerWorker.drain()).toBe(1);
    } finally {
      await newerWorker.stop();
    }
    expect(await h.job(id)).toMatchObject({
      status: "COMPLETED",
      attempts: 1,
      result: { ran: true, tokenLength: "opaque-token-newer".length },
    });
  });

  it("a retryable error releases the lease and redelivers with backoff; the next delivery succeeds", async () => {
    behaviours.set("flaky", async (ctx) => {
      if (ctx.attempt === 1) throw new JobError("UPSTREAM_BUSY", { retryable: true });
      return { attempt: ctx.attempt };
    });
    const id = await submit({ case: "flaky" });
    const worker = h.worker();
    await worker.drain();
    const afterFirst = await h.job(id);
    expect(afterFirst).toMatchObject({ status: "IN_PROGRESS", leaseToken: null, attempts: 1, error: null });
    const pending = await h.pendingMessages(id);
    expect(pending).toHaveLength(1);
    // Scheduled about 1 s out (the first step of the default ladder): not deliverable yet.
    expect(pending[0]!.delayMs).toBeGreaterThan(200);
    expect(await worker.drain()).toBe(0);
    await h.makeDue();
    await worker.drain();
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", result: { attempt: 2 }, attempts: 2 });
    expect(outcomesOf("scripted")).toContain("retried");
  });

  it("bounds retryable attempts, then FAILED JOB_FAILED with retryable: true", async () => {
    behaviours.set("always-busy", async () => {
      throw Object.assign(new Error("socket hang up at https://upstream.example/secret"), {
        retryable: true,
      });
    });
    const id = await submit({ case: "always-busy" }, { token: "opaque-token-bounded" });
    const worker = h.worker();
    for (let round = 0; round < 5; round++) {
      await h.makeDue();
      await worker.drain();
    }
    const row = await h.job(id);
    expect(row.status).toBe("FAILED");
    expect(row.attempts).toBe(3);
    expect(row.error).toEqual({ code: "JOB_FAILED", message: "The job failed.", retryable: true });
    expect((await findCredential(db.db, row.credentialId!))?.sealed).toBeNull();
  });

  it("a job that meets the upstream's request limit is delayed and retried, never failed, its attempt given back", async () => {
    let scope: ReturnType<typeof currentUpstreamScope>;
    // More deliveries than maxAttempts (3), each meeting an exhausted budget, then one that works.
    behaviours.set("limited", async (ctx) => {
      scope = currentUpstreamScope();
      if (calls.filter((call) => call.jobId === ctx.job.id).length <= 5) {
        const limited = new GatewayError({
          kind: "rateLimited",
          status: 429,
          method: "GET",
          route: "/v1/workspaces/{ws}/resources",
          gateway: "um",
        });
        // As a service rethrows it: the registry's upstreamBusy with the gateway error as cause.
        throw serviceErrorForGateway(limited);
      }
      return { done: true };
    });
    const id = await submit({ case: "limited" }, { token: "opaque-token-limited" });
    const worker = h.worker();
    for (let round = 0; round < 6; round++) {
      await h.makeDue();
      await worker.drain();
      if (round < 5) {
        const row = await h.job(id);
        expect(row).toMatchObject({ status: "IN_PROGRESS", leaseToken: null, attempts: 0, error: null });
        const pending = await h.pendingMessages(id);
        expect(pending).toHaveLength(1);
        expect(pending[0]!.delayMs).toBeGreaterThan(500);
        // Not ahead of new work: a tenant's jobs waiting on its spent account must not keep
        // other tenants' new jobs from being fetched.
        expect(pending[0]!.priority).toBe(0);
      }
    }
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", result: { done: true } });
    // The handler ran at job priority, with its timeout as the deadline.
    expect(scope).toMatchObject({ priority: "job" });
  });

  it("a terminal error fails at once with a registry sentence, never the raw exception text", async () => {
    behaviours.set("boom", async () => {
      throw new Error("database password=hunter2 leaked into an exception");
    });
    behaviours.set("custom", async () => {
      throw new JobError("CUSTOM_TERMINAL");
    });
    behaviours.set("coded", async () => {
      throw Object.assign(new Error("raw upstream body"), { code: "serenityUpstreamError" });
    });
    const boom = await submit({ case: "boom" });
    const custom = await submit({ case: "custom" });
    const coded = await submit({ case: "coded" });
    await h.worker().drain();
    expect((await h.job(boom)).error).toEqual({
      code: "JOB_FAILED",
      message: "The job failed.",
      retryable: false,
    });
    expect((await h.job(custom)).error).toEqual({
      code: "CUSTOM_TERMINAL",
      message: "The custom step failed.",
      retryable: false,
    });
    expect((await h.job(coded)).error).toEqual({
      code: "serenityUpstreamError",
      message: "The upstream service failed.",
      retryable: false,
    });
    for (const id of [boom, custom, coded]) expect((await h.job(id)).attempts).toBe(1);
  });

  it("checkpoints survive a retry; requeue and chain create records, set nextJobId and hand the credential on", async () => {
    const sinceSeen: (number | undefined)[] = [];
    behaviours.set("multi-hop", async (ctx) => {
      sinceSeen.push(currentUpstreamScope()?.since);
      if (!ctx.metadata.generated) {
        await ctx.saveCheckpoint({ generated: ["a", "b"] });
        throw new JobError("TRANSIENT", { retryable: true });
      }
      if (!ctx.metadata.hop) return ctx.requeue({ delayMs: 2_000, metadata: { ...ctx.metadata, hop: 2 } });
      return ctx.chain({ type: "follower", metadata: { from: ctx.job.id } });
    });
    const first = await submit({ case: "multi-hop" }, { token: "opaque-token-chain" });
    const rootCreatedAt = (await h.job(first)).createdAt.getTime();
    h.clock.advance(5_000); // later hops are delivered later: their budget age stays the root's
    const worker = h.worker();
    await worker.drain();
    expect((await h.job(first)).metadata).toEqual({ case: "multi-hop", generated: ["a", "b"] });
    await h.makeDue();
    await worker.drain();

    const hop1 = await h.job(first);
    expect(hop1.status).toBe("COMPLETED");
    const secondId = hop1.result?.requeuedJobId as string;
    expect(hop1.nextJobId).toBe(secondId);
    const credentialId = hop1.credentialId!;
    // Handed on: still sealed while the chain runs.
    expect((await findCredential(db.db, credentialId))?.sealed).not.toBeNull();
    const hop2 = await h.job(secondId);
    expect(hop2).toMatchObject({
      type: "scripted",
      status: "IN_PROGRESS",
      credentialId,
      createdBy: "user-1",
    });
    expect(hop2.metadata).toEqual({ case: "multi-hop", generated: ["a", "b"], hop: 2 });
    const [message] = await h.pendingMessages(secondId);
    expect(message!.delayMs).toBeGreaterThan(1_000);
    expect(message!.priority).toBe(1); // a hand-off is work under way: fetched before new work

    await h.makeDue();
    await worker.drain();
    const chained = await h.job(secondId);
    const followerId = chained.result?.chainedJobId as string;
    expect(chained).toMatchObject({ status: "COMPLETED", nextJobId: followerId });
    const last = await h.job(followerId);
    expect(last).toMatchObject({
      type: "follower",
      status: "COMPLETED",
      credentialId,
      result: { followed: true, tokenLength: "opaque-token-chain".length },
    });
    // Only the last job of the chain invalidates.
    expect((await findCredential(db.db, credentialId))?.sealed).toBeNull();
    expect(outcomesOf("scripted")).toContain("requeued");
    // Every hop waits for upstream budget as old as its lineage: the first record's creation.
    expect(sinceSeen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(sinceSeen)).toEqual(new Set([rootCreatedAt]));
  });

  it("a missing or expired credential fails the job NEEDS_REAUTH", async () => {
    const noCredential = await submit({}, { type: "follower" });
    const expiring = await submit({}, { type: "follower", token: "opaque-token-expiring", enqueue: false });
    h.clock.advance(2 * 60 * 60 * 1000); // past the 1 h default TTL of a non-JWT token
    await h.queue.enqueue(expiring);
    await h.worker().drain();
    for (const id of [noCredential, expiring]) {
      expect((await h.job(id)).error).toEqual({
        code: "NEEDS_REAUTH",
        message: "Your sign-in expired before the job could finish; sign in again and resume it.",
        retryable: false,
      });
    }
  });

  it("aborts the handler at its timeout (manual clock) and treats it as retryable", async () => {
    const started = deferred();
    let sawAbort: unknown;
    behaviours.set("slow", async (ctx) => {
      started.resolve();
      await new Promise((_, reject) =>
        ctx.signal.addEventListener("abort", () => {
          sawAbort = ctx.signal.reason;
          reject(new Error("aborted"));
        }),
      );
      return {};
    });
    const id = await submit({ case: "slow" });
    const round = h.worker().pollOnce();
    await started.promise;
    expect((await h.job(id)).leaseExpiresAt!.getTime()).toBe(h.clock.now().getTime() + 10_000);
    h.clock.advance(4_999);
    expect(sawAbort).toBeUndefined();
    h.clock.advance(1);
    await round;
    expect(sawAbort).toMatchObject({ code: "JOB_TIMEOUT" });
    expect(await h.job(id)).toMatchObject({ status: "IN_PROGRESS", leaseToken: null, attempts: 1 });
    expect(await h.pendingMessages(id)).toHaveLength(1);
  });

  it("a handler that ran past its lease loses it: its checkpoint and completion are discarded", async () => {
    const started = deferred();
    const proceed = deferred();
    behaviours.set("overrun", async (ctx) => {
      started.resolve();
      await proceed.promise;
      await ctx.saveCheckpoint({ late: true });
      return { late: true };
    });
    const id = await submit({ case: "overrun" });
    const round = h.worker().pollOnce();
    await started.promise;
    h.clock.advance(10_001);
    const thief = randomUUID();
    expect(
      await claimJobLease(db.db, { jobId: id, leaseToken: thief, now: h.clock.now(), ttlMs: 10_000 }),
    ).toBeDefined();
    proceed.resolve();
    await round;
    const row = await h.job(id);
    expect(row).toMatchObject({ status: "IN_PROGRESS", leaseToken: thief });
    expect(row.metadata).toEqual({ case: "overrun" });
    expect(h.finished.at(-1)).toMatchObject({ type: "scripted", outcome: "lease_lost" });
  });
});
