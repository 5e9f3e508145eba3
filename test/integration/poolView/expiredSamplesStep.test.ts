import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { insertPoolSample } from "../../../src/db/poolSamples/insertPoolSample.ts";
import { purgeExpiredPoolSamples } from "../../../src/db/poolSamples/purgeExpiredPoolSamples.ts";
import { orgs, poolSamples } from "../../../src/db/schema.ts";
import { expiredPoolSamplesStep } from "../../../src/poolView/expiredSamplesStep.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

/**
 * The pool history is bounded for every org (issue 42): an org's own samples are purged as new
 * ones arrive, but an org gone idle is no longer sampled (ADR 0042), so the job reconciler's step
 * deletes every org's samples past the retention, a bounded batch per run.
 */
const HOUR = 3_600_000;
const RETENTION_MS = 7 * 24 * HOUR;
const now = new Date("2026-12-05T12:00:00.000Z");
const dimension = { used: 1, drafted: 0, total: 10, free: 9 };
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.destroy();
});

async function orgWithSamples(hoursAgo: number[]): Promise<string> {
  const id = randomUUID();
  await db.db.insert(orgs).values({ id, name: `org ${id}`, createdAt: now, updatedAt: now });
  for (const ago of hoursAgo)
    await insertPoolSample(db.db, {
      orgId: id,
      projects: dimension,
      prompts: dimension,
      sampledAt: new Date(now.getTime() - ago * HOUR),
    });
  return id;
}

const hoursLeft = async (orgId: string) =>
  (await db.db.select().from(poolSamples).where(eq(poolSamples.orgId, orgId)))
    .map((row) => (now.getTime() - row.sampledAt.getTime()) / HOUR)
    .sort((a, b) => a - b);

describe("the pool history's retention, for orgs no longer sampled", () => {
  it("the reconciler step deletes every org's samples past the retention and keeps the rest", async () => {
    // Gone idle nine days ago: its samples run from 9 to 10 days back, and nothing purges them.
    const idle = await orgWithSamples([9 * 24, 9 * 24 + 1, 10 * 24]);
    const active = await orgWithSamples([0, 1, 7 * 24 - 1, 7 * 24 + 1]);
    const { name, step } = expiredPoolSamplesStep(() => RETENTION_MS);
    expect(name).toBe("poolHistory.expiredSamples");
    expect(await step({ db: db.db, now })).toEqual({ purged: 4 });
    expect(await hoursLeft(idle)).toEqual([]);
    expect(await hoursLeft(active)).toEqual([0, 1, 7 * 24 - 1]);
    expect(await step({ db: db.db, now })).toEqual({ purged: 0 });
  });

  it("deletes a bounded batch per run", async () => {
    const idle = await orgWithSamples([200, 201, 202, 203, 204]);
    const before = new Date(now.getTime() - RETENTION_MS);
    expect(await purgeExpiredPoolSamples(db.db, { before, limit: 2 })).toBe(2);
    expect(await hoursLeft(idle)).toHaveLength(3);
    expect(await purgeExpiredPoolSamples(db.db, { before, limit: 2 })).toBe(2);
    expect(await purgeExpiredPoolSamples(db.db, { before, limit: 2 })).toBe(1);
    expect(await hoursLeft(idle)).toEqual([]);
  });
});
