import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { credentials, jobs } from "../../../src/db/schema.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobService } from "../../../src/jobs/jobService.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, type JobWorld } from "../../support/jobWorld.ts";

let db: TestDatabase;
let h: JobWorld;
let service: JobService;
const ORG = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [
    defineJobHandler({
      type: "echo",
      publicType: "echo",
      timeoutMs: 1_000,
      leaseTtlMs: 2_000,
      maxAttempts: 1,
      async handle(ctx) {
        return { token: (await ctx.credential()).length };
      },
    }),
  ]);
  service = new JobService({
    db: db.db,
    clock: h.clock,
    logger: h.logger,
    registry: h.registry,
    queue: h.queue,
    credentials: h.credentials,
    // Submit and the heartbeat read never touch tenancy.
    orgs: undefined as never,
  });
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

const input = (id: string) => ({
  id,
  type: "echo",
  orgId: ORG,
  brandId: null,
  metadata: { n: 1 },
  createdBy: "user-1",
  credentialToken: "opaque-submit-token",
});

describe("JobService.submit", () => {
  it("creates the record, seals the credential and enqueues, as one unit", async () => {
    const id = randomUUID();
    expect(await service.submit(input(id))).toEqual({ jobId: id, created: true });
    expect(await h.pendingMessages(id)).toHaveLength(1);
    await h.worker().drain();
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", result: { token: 19 } });
  });

  it("is idempotent on the id: a second submit seals nothing and enqueues nothing", async () => {
    const id = randomUUID();
    await service.submit(input(id));
    const sealedBefore = (await db.db.select().from(credentials)).length;
    expect(await service.submit(input(id))).toEqual({ jobId: id, created: false });
    expect((await db.db.select().from(credentials)).length).toBe(sealedBefore);
    expect(await h.pendingMessages(id)).toHaveLength(1);
  });

  it("joins the caller's transaction: a rollback leaves no record, no credential and no message", async () => {
    const id = randomUUID();
    const sealedBefore = (await db.db.select().from(credentials)).length;
    await expect(
      db.db.transaction(async (tx) => {
        await service.submit(input(id), { db: tx });
        throw new Error("the producer's next step failed");
      }),
    ).rejects.toThrow("next step failed");
    expect(await db.db.select().from(jobs).where(eq(jobs.id, id))).toEqual([]);
    expect((await db.db.select().from(credentials)).length).toBe(sealedBefore);
    expect(await h.pendingMessages(id)).toEqual([]);
  });

  it("reports a live worker for a type only while its heartbeat is fresh", async () => {
    expect(await service.hasLiveWorker("echo")).toBe(false);
    const worker = h.worker();
    await worker.heartbeat();
    expect(await service.hasLiveWorker("echo")).toBe(true);
    expect(await service.hasLiveWorker("other-type")).toBe(false);
    h.clock.advance(61_000);
    expect(await service.hasLiveWorker("echo")).toBe(false);
  });
});
