import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { markOrgActive } from "../../../src/db/orgs/markOrgActive.ts";
import { brands, orgs } from "../../../src/db/schema.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { PoolSampler, type PoolSamplerDeps } from "../../../src/poolView/poolSampler.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * A worker killed mid-sample (docs/decisions/0042): its lease on the org lapses half a period
 * later, so another worker's next tick samples the org and the org's next sample still comes within
 * twice the period. The sampled read is a stand-in that never answers for the killed worker: what
 * is under test is the lease on the database's clock (driven by hand), not the read.
 */
const PERIOD_MS = 60_000;
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.destroy();
});

function samplerOf(clock: ManualClock, sample: (org: { id: string }) => Promise<void>): PoolSampler {
  const deps: PoolSamplerDeps = {
    db: db.db,
    clock,
    logger: createLogger({ level: "silent" }),
    credentials: undefined as unknown as PoolSamplerDeps["credentials"], // the operator's token reads
    poolView: { sample } as unknown as PoolSamplerDeps["poolView"],
    operatorBearer: "operator-token",
    idle: { afterMs: 3_600_000, callsPerHour: 12 },
  };
  return new PoolSampler(deps);
}

/** An org with one brand, used just now (active: the sampler samples it). */
async function activeOrg(clock: ManualClock, name: string): Promise<string> {
  const orgId = randomUUID();
  await db.db.insert(orgs).values({
    id: orgId,
    name,
    parentWorkspaceId: `parent-${name}`,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  await db.db.insert(brands).values({
    orgId,
    name: `${name} brand`,
    status: "active",
    provisioningStatus: "ready",
    createdAt: clock.now(),
    updatedAt: clock.now(),
  });
  await markOrgActive(db.db, { orgId, now: clock.databaseTime() });
  return orgId;
}

describe("the pool sample's lease", () => {
  it("a worker killed mid-sample holds its org half a period, not more", async () => {
    const clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
    await activeOrg(clock, "lease");

    // The killed worker: its read never answers, so it never ends its run. The survivor starts once
    // the killed worker is reading, so the run is the killed worker's whatever the connections' speed.
    let killedReading: () => void = () => {};
    const reading = new Promise<void>((resolve) => (killedReading = resolve));
    const killed = samplerOf(clock, () => {
      killedReading();
      return new Promise<void>(() => {});
    });
    void killed.sampleAll(undefined, { periodMs: PERIOD_MS });
    await reading;
    let reads = 0;
    const survivor = samplerOf(clock, async () => {
      reads += 1;
    });
    const pass = () => survivor.sampleAll(undefined, { periodMs: PERIOD_MS });
    expect(await pass()).toMatchObject({ sampled: 0, taken: 1 });

    clock.advance(PERIOD_MS / 2);
    expect(await pass()).toMatchObject({ sampled: 0, taken: 1 });
    clock.advance(1);
    expect(await pass()).toMatchObject({ sampled: 1 });
    expect(reads).toBe(1);
    // Its own run ended: the org is not due again before a period has passed.
    clock.advance(PERIOD_MS - 1);
    expect(await pass()).toMatchObject({ sampled: 0, taken: 1 });
    clock.advance(1);
    expect(await pass()).toMatchObject({ sampled: 1 });
  });

  it("one org's sample waiting on its account does not hold the others' in the same pass", async () => {
    const clock = new ManualClock(new Date("2026-06-02T09:00:00.000Z"));
    const slow = await activeOrg(clock, "slow");
    const quick = await activeOrg(clock, "quick");
    let release: () => void = () => {};
    const sampled: string[] = [];
    const sampler = samplerOf(clock, async (org) => {
      if (org.id === slow) await new Promise<void>((resolve) => (release = resolve));
      sampled.push(org.id);
    });
    const pass = sampler.sampleAll(undefined, { periodMs: PERIOD_MS });
    // The quick org is sampled while the slow one still waits (one at a time, it would wait too).
    await expect.poll(() => sampled.includes(quick)).toBe(true);
    expect(sampled).not.toContain(slow);
    release();
    expect(await pass).toMatchObject({ sampled: 2 });
    expect(sampled).toContain(slow);
  });
});
