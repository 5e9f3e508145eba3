import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brandLeases } from "../../../src/db/schema.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { createBrandLease, DEFAULT_BRAND_LEASE_TTL_MS } from "../../../src/locks/brandLease.ts";
import { EventBus, type ServiceEvents } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { drive, ManualClock } from "../../support/manualClock.ts";
import { track, waitFor } from "../../support/wait.ts";

/**
 * The per-brand lease (ADR 0015) on the shared lease-row lock (src/locks/leaseRowLock.ts,
 * whose mechanics test/integration/allocation/allocationLock.test.ts covers through the allocation
 * lock): what is the brand lease's own — its table, its wait setting and per-call wait, brandBusy,
 * reentrancy within one async context, and its events. Time moves on a manual clock only while the
 * code under test is blocked on it.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.destroy());

function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const events = new EventBus();
  const waits: ServiceEvents["brand.leaseWait"][] = [];
  events.on("brand.leaseWait", (event) => waits.push(event));
  const lease = createBrandLease({
    db: db.db,
    clock,
    events,
    logger: createLogger({ level: "silent" }),
    env,
    random: () => 0.5,
  });
  return { clock, lease, waits };
}

const row = async (brandId: string) =>
  (await db.db.select().from(brandLeases).where(eq(brandLeases.brandId, brandId)))[0];

describe("the brand lease", () => {
  it("holds a row while work runs, serialises a second caller, and frees the row after", async () => {
    const { clock, lease, waits } = setup();
    const brandId = randomUUID();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const order: string[] = [];
    const first = lease.withBrand(brandId, async () => {
      order.push("first in");
      await gate;
      order.push("first out");
    });
    await waitFor(async () => (await row(brandId)) !== undefined, { what: "the first lease row" });
    const second = track(lease.withBrand(brandId, async () => void order.push("second")));
    // Blocked: the first holder's heartbeat and the second caller's poll.
    await drive(clock, 2_000, 100, { sleepers: 2, done: () => second.settled });
    expect(second.settled).toBe(false);
    release();
    await first;
    await drive(clock, 2_000, 100, { sleepers: 1, done: () => second.settled });
    expect(second.error).toBeUndefined();
    expect(order).toEqual(["first in", "first out", "second"]);
    expect(waits.map((wait) => wait.acquired)).toEqual([true, true]);
    expect(await row(brandId)).toBeUndefined();
  });

  it("a wait that runs out is brandBusy naming the brand: the setting's wait, or the call's own", async () => {
    const { clock, lease, waits } = setup({ SERENITY_BRAND_LEASE_TIMEOUT_MS: "3000" });
    const brandId = randomUUID();
    let release!: () => void;
    const held = lease.withBrand(brandId, () => new Promise<void>((resolve) => (release = resolve)));
    await waitFor(async () => (await row(brandId)) !== undefined, { what: "the lease row" });

    let ran = false;
    const bySetting = track(lease.withBrand(brandId, async () => void (ran = true)));
    await drive(clock, 5_000, 100, { sleepers: 2, done: () => bySetting.settled });
    expect(bySetting.error).toBeInstanceOf(ServiceError);
    expect(bySetting.error).toMatchObject({ code: "brandBusy", details: { brandId } });
    expect(waits.at(-1)).toEqual({ waitSeconds: 3, acquired: false });

    // A zero wait (the upstream reconciler's) is one attempt: refused with no time passing, and
    // not counted as a caller kept waiting (operators read that metric as 503s to clients).
    const counted = waits.length;
    const atOnce = track(lease.withBrand(brandId, async () => void (ran = true), { waitMs: 0 }));
    await waitFor(() => atOnce.settled, { what: "the zero-wait refusal" });
    expect(atOnce.error).toMatchObject({ code: "brandBusy" });
    expect(waits).toHaveLength(counted);
    expect(ran).toBe(false);
    release();
    await held;
  });

  it("is reentrant within one async context, and keeps its row by heartbeat past its TTL", async () => {
    const { clock, lease } = setup();
    const brandId = randomUUID();
    const outcome = track(
      lease.withBrand(brandId, async () => {
        const taken = (await row(brandId))!.expiresAt.getTime();
        // Nested structural work of the same brand does not wait for itself.
        await lease.withBrand(brandId, async () => undefined, { waitMs: 0 });
        // Time passes beyond one TTL while the work runs: the heartbeat renews the row.
        for (let spent = 0; spent <= DEFAULT_BRAND_LEASE_TTL_MS; spent += 1_000) {
          await waitFor(() => clock.pendingSleeps >= 1, { what: "the heartbeat asleep" });
          clock.advance(1_000);
        }
        await waitFor(
          async () => (await row(brandId))!.expiresAt.getTime() > taken + DEFAULT_BRAND_LEASE_TTL_MS / 2,
          {
            what: "a renewal",
          },
        );
        return "done";
      }),
    );
    await waitFor(() => outcome.settled, { what: "the work" });
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toBe("done");
    expect(await row(brandId)).toBeUndefined();
  });

  it("takes over a lease whose holder crashed (its row expired)", async () => {
    const { clock, lease } = setup();
    const brandId = randomUUID();
    await db.db.insert(brandLeases).values({
      brandId,
      holder: randomUUID(),
      expiresAt: new Date(clock.now().getTime() - 1),
    });
    expect(await lease.withBrand(brandId, async () => "ran")).toBe("ran");
    expect(await row(brandId)).toBeUndefined();
  });
});
