import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { workerHeartbeats } from "../../../src/db/schema.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { createPgBossQueue } from "../../../src/jobs/queue.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, deferred, type JobWorld } from "../../support/jobWorld.ts";
import { waitFor } from "../../support/wait.ts";

let db: TestDatabase;
let h: JobWorld;
const ORG = randomUUID();
const release = deferred();
let concurrent = 0;
let maxConcurrent = 0;

const quick = defineJobHandler({
  type: "quick",
  publicType: "quickJob",
  timeoutMs: 1_000,
  leaseTtlMs: 5_000,
  maxAttempts: 3,
  async handle(ctx) {
    concurrent += 1;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    await new Promise((resolve) => setTimeout(resolve, 2));
    concurrent -= 1;
    return { n: ctx.metadata.n };
  },
});
const stubborn = defineJobHandler({
  type: "stubborn",
  publicType: "stubbornJob",
  timeoutMs: 60_000,
  leaseTtlMs: 120_000,
  maxAttempts: 3,
  async handle(ctx) {
    await Promise.race([
      release.promise,
      new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    ]);
    return { finished: true };
  },
});

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [quick, stubborn]);
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

async function insert(type: string, metadata: Record<string, unknown> = {}): Promise<string> {
  const id = randomUUID();
  await insertJob(db.db, {
    id,
    type,
    orgId: ORG,
    brandId: null,
    metadata,
    credentialId: null,
    createdBy: null,
    now: h.clock.now(),
  });
  return id;
}

describe("the worker loop", () => {
  it("runs a burst with bounded concurrency, heartbeats while running and removes its heartbeat on stop", async () => {
    const worker = h.worker({ concurrency: 4, idleWaitMs: 20 });
    await worker.start();
    const rows = await db.db.select().from(workerHeartbeats);
    expect(rows.map((row) => row.workerId)).toContain(worker.workerId);
    expect(rows.find((row) => row.workerId === worker.workerId)?.jobTypes.sort()).toEqual([
      "quick",
      "stubborn",
    ]);

    const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => insert("quick", { n })));
    for (const id of ids) await h.queue.enqueue(id);
    await waitFor(async () => {
      const states = await Promise.all(ids.map((id) => h.job(id).then((row) => row.status)));
      return states.every((status) => status === "COMPLETED");
    });
    expect(maxConcurrent).toBeGreaterThan(1);
    expect(maxConcurrent).toBeLessThanOrEqual(4);
    await worker.stop();
    expect((await db.db.select().from(workerHeartbeats)).map((row) => row.workerId)).not.toContain(
      worker.workerId,
    );
  });

  it("wakes on an enqueue from another process (NOTIFY) instead of waiting out its idle poll", async () => {
    // An idle wait far longer than the test's own deadline: only a NOTIFY can wake the loop in time.
    const worker = h.worker({ listen: true, idleWaitMs: 10 * 60_000 });
    await worker.start();
    await waitFor(() => worker.idle);
    const otherProcessQueue = createPgBossQueue({ pool: db.pool, logger: h.logger });
    await otherProcessQueue.start(); // as every process does at boot
    const id = await insert("quick", { n: -1 });
    await otherProcessQueue.enqueue(id);
    await waitFor(async () => (await h.job(id)).status === "COMPLETED", { timeoutMs: 60_000 });
    await worker.stop();
    await otherProcessQueue.stop();
  });

  it("graceful shutdown: waits a bounded time, then releases the lease (refunding the attempt) and re-sends the job", async () => {
    const worker = h.worker({ concurrency: 2, idleWaitMs: 20, shutdownGraceMs: 100 });
    await worker.start();
    const id = await insert("stubborn");
    await h.queue.enqueue(id);
    await waitFor(async () => (await h.job(id)).leaseToken !== null);
    expect(worker.inFlight).toBe(1);
    await worker.stop();
    const row = await h.job(id);
    expect(row).toMatchObject({ status: "IN_PROGRESS", leaseToken: null, leaseExpiresAt: null, attempts: 0 });
    expect(await h.pendingMessages(id)).toHaveLength(1);

    // Another worker picks it up at once and finishes it.
    release.resolve();
    const next = h.worker();
    await next.drain();
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", attempts: 1 });
  });
});
