import { randomUUID } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, type JobWorld } from "../../support/jobWorld.ts";

/**
 * The queue adapter on real pg-boss: work already under way (a requeue, a chained hop, a retry)
 * is fetched before new work due at the same time, so a burst's later hops do not wait behind
 * every first hop for a free handler.
 */
let db: TestDatabase;
let h: JobWorld;

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, []);
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});
beforeEach(async () => {
  await db.db.execute(sql`delete from pgboss.job`);
});

describe("the job queue", () => {
  it("fetches continuations before new work", async () => {
    const fresh = [randomUUID(), randomUUID(), randomUUID()];
    for (const jobId of fresh) await h.queue.enqueue(jobId);
    const continuation = randomUUID();
    await h.queue.enqueue(continuation, { continuation: true });

    const first = await h.queue.fetch(1);
    expect(first.map((message) => message.jobId)).toEqual([continuation]);
    const rest = await h.queue.fetch(10);
    expect(rest.map((message) => message.jobId).sort()).toEqual([...fresh].sort());
  });

  it("still waits for a continuation's delay", async () => {
    const fresh = randomUUID();
    await h.queue.enqueue(fresh);
    await h.queue.enqueue(randomUUID(), { continuation: true, delayMs: 60 * 60 * 1000 });
    const fetched = await h.queue.fetch(10);
    expect(fetched.map((message) => message.jobId)).toEqual([fresh]);
  });
});
