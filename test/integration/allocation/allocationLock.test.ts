import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import {
  createDatabaseLockProvider,
  DEFAULT_LOCK_TTL_MS,
} from "../../../src/allocation/databaseAllocationLock.ts";
import { acquireAllocationLock } from "../../../src/db/allocation/acquireAllocationLock.ts";
import { releaseAllocationLock } from "../../../src/db/allocation/releaseAllocationLock.ts";
import { renewAllocationLock } from "../../../src/db/allocation/renewAllocationLock.ts";
import { openDatabase } from "../../../src/db/database.ts";
import { allocationLocks } from "../../../src/db/schema.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { reentrant } from "../../../src/locks/reentrantLock.ts";
import { EventBus, type ServiceEvents } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createInProcessLockProvider } from "../../support/inProcessAllocationLock.ts";
import { drive, ManualClock } from "../../support/manualClock.ts";
import { nextTurn, track } from "../../support/wait.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.destroy());

const logger = createLogger({ level: "silent" });

function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  const events = new EventBus();
  const waits: ServiceEvents["allocation.lockWait"][] = [];
  events.on("allocation.lockWait", (event) => waits.push(event));
  const provider = createDatabaseLockProvider({ db: db.db, clock, events, logger, env, random: () => 0.5 });
  return { clock, provider, waits };
}

async function lockRow(subWorkspaceId: string) {
  const rows = await db.db.select().from(allocationLocks);
  return rows.find((row) => row.subWorkspaceId === subWorkspaceId);
}

describe("database allocation lock", () => {
  it("a second holder waits until the first releases", async () => {
    const { clock, provider, waits } = setup();
    const ws = `ws-${randomUUID()}`;
    const first = await provider.acquire(ws);
    const second = track(provider.acquire(ws));

    // Blocked: the first lease's heartbeat and the second acquirer's poll.
    await drive(clock, 1_000, 50, { sleepers: 2 });
    expect(second.settled).toBe(false);

    await first.release();
    await drive(clock, 1_000, 50, { sleepers: 1, done: () => second.settled });
    expect(second.error).toBeUndefined();
    expect(second.value).toBeDefined();
    expect(waits.map((wait) => wait.acquired)).toEqual([true, true]);
    expect(waits[1]!.waitSeconds).toBeGreaterThanOrEqual(1);
    await second.value!.release();
    expect(await lockRow(ws)).toBeUndefined();
  });

  it("the release commits asynchronously for itself only: the pooled session keeps the server's synchronous_commit", async () => {
    // One connection, so the statements below run on the session the release ran on.
    const single = openDatabase(db.url, { max: 1 });
    try {
      const ws = `ws-${randomUUID()}`;
      const holder = randomUUID();
      const now = new Date();
      expect(
        (
          await acquireAllocationLock(single.db, {
            subWorkspaceId: ws,
            holder,
            now,
            ttlMs: 6_000,
            publishLagMs: 30_000,
          })
        ).taken,
      ).toBe(true);
      expect(await releaseAllocationLock(single.db, { subWorkspaceId: ws, holder })).toBe(true);
      expect(await lockRow(ws)).toBeUndefined(); // visible to another session at once
      // Nothing the release set outlives its transaction: the session's value is the server's own
      // (the embedded test cluster runs with synchronous_commit off, so the value alone says nothing).
      const setting = await single.pool.query(
        "select source from pg_settings where name = 'synchronous_commit'",
      );
      expect(setting.rows[0].source).not.toBe("session");
      // The prepared statements are reused on the same connection, and still guard by holder.
      expect(
        (
          await acquireAllocationLock(single.db, {
            subWorkspaceId: ws,
            holder,
            now,
            ttlMs: 6_000,
            publishLagMs: 30_000,
          })
        ).taken,
      ).toBe(true);
      expect(await releaseAllocationLock(single.db, { subWorkspaceId: ws, holder: randomUUID() })).toBe(
        false,
      );
      expect(await releaseAllocationLock(single.db, { subWorkspaceId: ws, holder })).toBe(true);
    } finally {
      await single.close();
    }
  });

  it("a crashed holder's lease expires after its TTL and is taken over", async () => {
    const { clock, provider } = setup();
    const ws = `ws-${randomUUID()}`;
    const crashed = randomUUID();
    // A holder that never heartbeats nor releases (killed mid-section).
    await acquireAllocationLock(db.db, {
      subWorkspaceId: ws,
      holder: crashed,
      now: clock.now(),
      ttlMs: 3_000,
      publishLagMs: 30_000,
    });

    const waiter = track(provider.acquire(ws));
    await drive(clock, 2_900, 100, { sleepers: 1, done: () => waiter.settled });
    expect(waiter.settled).toBe(false);

    await drive(clock, 1_000, 50, { sleepers: 1, done: () => waiter.settled });
    expect(waiter.error).toBeUndefined();
    expect((await lockRow(ws))?.holder).not.toBe(crashed);

    // The stale holder can neither renew nor release the new holder's lease.
    expect(
      await renewAllocationLock(db.db, { subWorkspaceId: ws, holder: crashed, now: clock.now(), ttlMs: 1 }),
    ).toBe(false);
    expect(await releaseAllocationLock(db.db, { subWorkspaceId: ws, holder: crashed })).toBe(false);
    expect(await lockRow(ws)).toBeDefined();
    await waiter.value!.release();
  });

  it("a holder whose lease was taken over knows it, and its section refuses the next write", async () => {
    const { clock, provider } = setup();
    const ws = `ws-${randomUUID()}`;
    const lock = reentrant(provider);
    let refused: unknown;
    await lock.withLock(ws, async () => {
      lock.assertHeld(ws); // held: no throw
      // Another process took the row over (our heartbeat stalled past the TTL).
      await db.db
        .update(allocationLocks)
        .set({ holder: randomUUID() })
        .where(eq(allocationLocks.subWorkspaceId, ws));
      // The next heartbeat (the only sleeper) finds the lease gone and stops.
      const lost = () => {
        try {
          lock.assertHeld(ws);
          return false;
        } catch {
          return true;
        }
      };
      await drive(clock, 2_100, 100, { sleepers: 1, done: lost });
      try {
        lock.assertHeld(ws);
      } catch (error) {
        refused = error;
      }
    });
    expect(refused).toMatchObject({ code: "workspaceBusy" });
  });

  it("a lease not renewed within its TTL counts as lost even before anyone takes it", async () => {
    const { clock, provider } = setup();
    const lease = await provider.acquire(`ws-${randomUUID()}`);
    expect(lease.held?.()).toBe(true);
    // Time jumps past the TTL with no heartbeat having run (a stalled event loop).
    clock.advance(7_000);
    expect(lease.held?.()).toBe(false);
    await lease.release();
  });

  it("a live holder keeps its lease by heartbeat; the waiter times out with workspaceBusy", async () => {
    const { clock, provider, waits } = setup({ SERENITY_ALLOCATION_LOCK_TIMEOUT_MS: "9000" });
    const ws = `ws-${randomUUID()}`;
    const holder = await provider.acquire(ws);
    const waiter = track(provider.acquire(ws));

    // The wait outlasts the TTL: without renewals the lease would have expired and been taken over.
    expect(9_000).toBeGreaterThan(DEFAULT_LOCK_TTL_MS);
    await drive(clock, 12_000, 100, { sleepers: 2, done: () => waiter.settled });
    expect(waiter.settled).toBe(true);
    expect(waiter.error).toBeInstanceOf(ServiceError);
    expect((waiter.error as ServiceError).code).toBe("workspaceBusy");
    expect(waits.at(-1)).toEqual({ waitSeconds: 9, acquired: false });

    // The holder still owns the row, and it has been renewed past the original expiry.
    const row = await lockRow(ws);
    expect(row?.expiresAt.getTime()).toBeGreaterThan(
      new Date("2026-01-01T00:00:00.000Z").getTime() + DEFAULT_LOCK_TTL_MS,
    );
    await holder.release();
    expect(await lockRow(ws)).toBeUndefined();
  });

  it("the default wait is 10 s", async () => {
    const { clock, provider } = setup();
    const ws = `ws-${randomUUID()}`;
    const holder = await provider.acquire(ws);
    const waiter = track(provider.acquire(ws));
    await drive(clock, 9_800, 200, { sleepers: 2, done: () => waiter.settled });
    expect(waiter.settled).toBe(false);
    await drive(clock, 600, 100, { sleepers: 2, done: () => waiter.settled });
    expect((waiter.error as ServiceError).code).toBe("workspaceBusy");
    await holder.release();
  });

  it("releases by holder token only", async () => {
    const now = new Date();
    const ws = `ws-${randomUUID()}`;
    const holder = randomUUID();
    expect(
      (
        await acquireAllocationLock(db.db, {
          subWorkspaceId: ws,
          holder,
          now,
          ttlMs: 60_000,
          publishLagMs: 30_000,
        })
      ).taken,
    ).toBe(true);
    expect(
      (
        await acquireAllocationLock(db.db, {
          subWorkspaceId: ws,
          holder: randomUUID(),
          now,
          ttlMs: 60_000,
          publishLagMs: 30_000,
        })
      ).taken,
    ).toBe(false);
    expect(await releaseAllocationLock(db.db, { subWorkspaceId: ws, holder: randomUUID() })).toBe(false);
    expect((await lockRow(ws))?.holder).toBe(holder);
    expect(await releaseAllocationLock(db.db, { subWorkspaceId: ws, holder })).toBe(true);
    expect(await lockRow(ws)).toBeUndefined();
  });

  it("locks of different sub-workspaces are independent", async () => {
    const { provider, waits } = setup();
    const [wsA, wsB] = [`ws-${randomUUID()}`, `ws-${randomUUID()}`];
    const a = await provider.acquire(wsA);
    // With A held and the clock standing still, B's lock is taken at once: a B that waited for A
    // would poll on the (never advanced) clock and stay unsettled.
    const b = track(provider.acquire(wsB));
    await vi.waitFor(() => expect(b.settled).toBe(true), { timeout: 30_000 });
    expect(b.error).toBeUndefined();
    // Both sections are held at once, as the database and the leases show.
    const [rowA, rowB] = [await lockRow(wsA), await lockRow(wsB)];
    expect(rowA?.holder).toBeDefined();
    expect(rowB?.holder).toBeDefined();
    expect(rowA!.holder).not.toBe(rowB!.holder);
    expect([a.held?.(), b.value!.held?.()]).toEqual([true, true]);
    expect(waits).toEqual([
      { waitSeconds: 0, acquired: true },
      { waitSeconds: 0, acquired: true },
    ]);
    await Promise.all([a.release(), b.value!.release()]);
    expect([await lockRow(wsA), await lockRow(wsB)]).toEqual([undefined, undefined]);
  });
});

describe("reentrant sections", () => {
  it("a nested section of the holder does not wait for itself, and siblings run one at a time", async () => {
    const { provider } = setup();
    const lock = reentrant(provider);
    const ws = `ws-${randomUUID()}`;
    const order: string[] = [];
    await lock.withLock(ws, async () => {
      order.push("outer");
      await Promise.all(
        ["a", "b"].map((name) =>
          lock.withLock(ws, async () => {
            order.push(`${name}:start`);
            await lock.withLock(ws, async () => order.push(`${name}:inner`));
            await nextTurn(); // gives other sections a chance to run (the order would show it)
            order.push(`${name}:end`);
          }),
        ),
      );
    });
    expect(order).toEqual(["outer", "a:start", "a:inner", "a:end", "b:start", "b:inner", "b:end"]);
    expect(await lockRow(ws)).toBeUndefined();
  });

  it("releases the lock when the section throws", async () => {
    const { provider } = setup();
    const lock = reentrant(provider);
    const ws = `ws-${randomUUID()}`;
    await expect(lock.withLock(ws, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await lockRow(ws)).toBeUndefined();
  });
});

describe("tryAcquire (rebalancing's short tries on a sibling's lock)", () => {
  it("a free lock is taken at once; a busy one answers undefined after the given wait, not the lock timeout", async () => {
    const { clock, provider, waits } = setup();
    const lock = reentrant(provider);
    const ws = `ws-${randomUUID()}`;
    const lease = await lock.tryAcquire(ws, 0);
    expect(lease).toBeDefined();
    // Busy, no wait: a single attempt, no sleep on the clock.
    expect(await lock.tryAcquire(ws, 0)).toBeUndefined();
    // Busy, a short wait: polls on the clock until 500 ms have passed, then gives up quietly.
    const waiter = track(lock.tryAcquire(ws, 500));
    await drive(clock, 1_000, 50, { sleepers: 2, done: () => waiter.settled });
    expect(waiter).toMatchObject({ settled: true, value: undefined });
    expect(waits.at(-1)).toEqual({ waitSeconds: 0.5, acquired: false });
    await lease!.release();
  });

  it("a busy lock freed during the wait is taken", async () => {
    const { clock, provider } = setup();
    const lock = reentrant(provider);
    const ws = `ws-${randomUUID()}`;
    const holder = await provider.acquire(ws);
    const waiter = track(lock.tryAcquire(ws, 500));
    await drive(clock, 100, 50, { sleepers: 2 });
    await holder.release();
    await drive(clock, 400, 50, { sleepers: 1, done: () => waiter.settled });
    expect(waiter.settled).toBe(true);
    expect(waiter.value).toBeDefined();
    await waiter.value!.release();
  });

  it("never waits for a lock the current section holds", async () => {
    const { provider } = setup();
    const lock = reentrant(provider);
    const ws = `ws-${randomUUID()}`;
    await lock.withLock(ws, async () => {
      expect(await lock.tryAcquire(ws, 10_000)).toBeUndefined();
    });
  });

  it("in-process: the same rules (no wait, a bounded wait on the clock, hand-over in order)", async () => {
    const clock = new ManualClock();
    const lock = reentrant(createInProcessLockProvider(clock));
    const first = await lock.tryAcquire("ws-1", 0);
    expect(first).toBeDefined();
    expect(await lock.tryAcquire("ws-1", 0)).toBeUndefined();
    const timedOut = track(lock.tryAcquire("ws-1", 200));
    await clock.untilSleeping(1);
    clock.advance(200);
    await vi.waitFor(() => expect(timedOut.settled).toBe(true), { timeout: 30_000 });
    expect(timedOut.value).toBeUndefined();
    const handedOver = track(lock.tryAcquire("ws-1", 200));
    await clock.untilSleeping(1);
    await first!.release();
    await vi.waitFor(() => expect(handedOver.settled).toBe(true), { timeout: 30_000 });
    expect(handedOver.value).toBeDefined();
    await handedOver.value!.release();
    // Free again: a plain section runs at once.
    await lock.withLock("ws-1", async () => undefined);
  });
});

describe("in-process lock (test-only)", () => {
  it("serialises sections inside one process", async () => {
    const lock = reentrant(createInProcessLockProvider());
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        lock.withLock("ws-1", async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await nextTurn(); // gives other sections a chance to run (the order would show it)
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
  });
});
