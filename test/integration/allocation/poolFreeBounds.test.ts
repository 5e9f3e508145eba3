import { describe, expect, it } from "vitest";

import { ANNOUNCEMENT_HOLD_MS } from "../../../src/allocation/announced.ts";
import { POOL_BOUND_FRESH_MS, poolFreeBoundWindowOf } from "../../../src/allocation/poolFreeBounds.ts";
import { listLedgerEntries } from "../../../src/db/allocation/listLedgerEntries.ts";
import { beginAnnouncement } from "../../../src/db/resourceObservations/beginAnnouncement.ts";
import { endAnnouncement } from "../../../src/db/resourceObservations/endAnnouncement.ts";
import { findPoolFreeBounds } from "../../../src/db/resourceObservations/findPoolFreeBounds.ts";
import { recordPoolFreeBound } from "../../../src/db/resourceObservations/recordPoolFreeBound.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { readParentAndFamily } from "../../../src/poolView/poolViewReads.ts";
import {
  type AllocationWorld,
  allocationWorldPerTest,
  buyPromptUnits,
  drainPool,
  PARENT,
  poolSum,
  TOKEN,
} from "../../support/allocationWorld.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * What Serenity knows its org's pool cannot give (docs/decisions/0033), over real HTTP against the
 * simulator (gold pool 13 / 800), the real gateway client and the database: a refused top-up bounds
 * the pool, a top-up the bound rules out is not sent, units Serenity gives back raise the bound, a
 * read of the parent or the bound's age lets units somebody else added be used, and what a call
 * sent before units came back taught is not recorded. Rebalancing is off here: these are the
 * attempts before it (§11 steps 1 and 2's exact and block transfers).
 */

const worlds = allocationWorldPerTest();
const windowOf = (t: AllocationWorld) => ({ ...poolFreeBoundWindowOf(t.deps), freshMs: POOL_BOUND_FRESH_MS });

const transfers = async (t: AllocationWorld) =>
  (await t.calls()).filter((call) => call.endsWith("/resources/transfer"));

async function world() {
  const clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
  const t = await worlds.start({ clock, env: { SERENITY_ALLOCATION_REBALANCE: "false" } });
  return { t, clock };
}

async function refused(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
}

describe("the pool's known free units", () => {
  it("a refused top-up bounds the pool: the attempts it rules out are not sent, the rest are", async () => {
    const { t } = await world();
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const b = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await drainPool(t, { prompts: 50 });
    const before = await poolSum(t);

    // 180 prompts: the block (→ 200, 100 from the pool) and the exact top-up (→ 180, 80) are refused.
    await t.clearCalls();
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");
    expect(await transfers(t)).toHaveLength(2);
    expect((await findPoolFreeBounds(worlds.db.db, t.orgId, windowOf(t))).bounds).toEqual({
      prompts: 80,
    });

    // The same again costs the read only: both attempts take at least 80.
    const notSent: string[] = [];
    t.events.on("allocation.topUpNotSent", ({ step }) => notSent.push(step));
    await t.clearCalls();
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");
    expect(await t.calls()).toEqual([`GET UM/v1/workspaces/${a}/resources`]);
    expect(notSent).toEqual(["topUp", "exact"]);
    const ledger = await listLedgerEntries(worlds.db.db, t.orgId, { limit: 10 });
    expect(ledger.slice(0, 2).map((row) => [row.reason, row.outcome, row.errorCode])).toEqual([
      ["exact", "rejected", "orgPoolExhausted"],
      ["topUp", "rejected", "orgPoolExhausted"],
    ]);

    // A top-up the bound does not rule out is sent: B's block (200, taking 100) is skipped, its exact
    // top-up (150, taking 50) fits and is served.
    await t.clearCalls();
    expect(await t.ensure(b, { prompts: 150 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 150 },
    });
    expect(await transfers(t)).toEqual([`POST UM/v2/workspaces/${b}/resources/transfer`]);
    expect(await poolSum(t)).toEqual(before);
  });

  it("units Serenity gives back raise the bound by what came back", async () => {
    const { t } = await world();
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const spare = await t.newSubWorkspace({ projects: 1, prompts: 300 });
    await drainPool(t, { prompts: 50 });
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");

    // The spare gives 200 back (to its floor of 100): the pool has 250, the bound is 80 + 200, and
    // the block (200, taking 100) is sent again and served.
    const released = await t.release(spare, { floor: { projects: 1, prompts: 100 } });
    expect(released.outcome).toBe("released");
    expect((await findPoolFreeBounds(worlds.db.db, t.orgId, windowOf(t))).bounds).toEqual({
      prompts: 280,
    });
    expect(await t.ensure(a, { prompts: 180 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 200 },
    });
  });

  it("units somebody else added are used at once after a read of the parent, or once the bound is a sampler interval old", async () => {
    const { t, clock } = await world();
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const b = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await drainPool(t, { prompts: 50 });
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");

    // The org buys 500 more prompts: the parent's total grows outside Serenity.
    await buyPromptUnits(t, 500);
    // Still known not to fit: nothing is sent (the sampler has not read the parent yet).
    await t.clearCalls();
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");
    expect(await transfers(t)).toEqual([]);

    // The sampler's read of the parent (550 free) replaces the bound: the top-up is sent and served.
    await readParentAndFamily(t.deps, { id: t.orgId, parentWorkspaceId: PARENT }, TOKEN, {
      pointed: new Set([a]),
      known: new Set(),
      priority: "background",
    });
    expect((await findPoolFreeBounds(worlds.db.db, t.orgId, windowOf(t))).bounds).toEqual({
      projects: 1,
      prompts: 551,
    });
    expect(await t.ensure(a, { prompts: 180 })).toMatchObject({ toppedUp: true });

    // Without a read: a new refusal, more units bought, and a sampler interval later the bound is
    // no longer trusted — the attempt is sent again.
    await drainPool(t, { prompts: 10 });
    expect(await refused(t.ensure(b, { prompts: 150 }))).toBe("orgPoolExhausted");
    await buyPromptUnits(t, 500);
    clock.advance(poolFreeBoundWindowOf(t.deps).ttlMs - 1);
    expect(await refused(t.ensure(b, { prompts: 150 }))).toBe("orgPoolExhausted");
    clock.advance(1);
    expect(await t.ensure(b, { prompts: 150 })).toMatchObject({ toppedUp: true });
  });

  it("a top-up ruled out by a bound older than a few seconds reads the parent again in the background: the next request uses units bought since", async () => {
    const { t, clock } = await world();
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await drainPool(t, { prompts: 50 });
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");
    await buyPromptUnits(t, 500);

    // Fresh, the bound rules the top-up out with no second look (nothing read, nothing sent).
    await t.clearCalls();
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");
    expect(await t.calls()).toEqual([`GET UM/v1/workspaces/${a}/resources`]);
    // Older than POOL_BOUND_FRESH_MS: still ruled out, and the parent is read in the background.
    clock.advance(POOL_BOUND_FRESH_MS);
    expect(await refused(t.ensure(a, { prompts: 180 }))).toBe("orgPoolExhausted");
    await waitFor(
      async () => (await findPoolFreeBounds(worlds.db.db, t.orgId, windowOf(t))).bounds.prompts === 551,
      { timeoutMs: 30_000, what: "the background read of the parent" },
    );
    expect(
      (await t.calls()).filter((call) => call === `GET UM/v1/workspaces/${PARENT}/resources`),
    ).toHaveLength(1);
    expect(await t.ensure(a, { prompts: 180 })).toMatchObject({ toppedUp: true });
  });

  it("a refusal over both dimensions at once bounds neither", async () => {
    const { t } = await world();
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await drainPool(t, { projects: 0, prompts: 500 });
    // Both short: one transfer names both; the pool has no project, so it is refused.
    expect(await refused(t.ensure(a, { projects: 2, prompts: 150 }))).toBe("orgPoolExhausted");
    expect((await findPoolFreeBounds(worlds.db.db, t.orgId, windowOf(t))).bounds).toEqual({});
  });

  it("what a call taught is not recorded when units came back, or were on their way, since it was sent", async () => {
    const { t, clock } = await world();
    // The window carries the clock's time: taken anew for every statement, as the code does.
    const window = () => poolFreeBoundWindowOf(t.deps);
    const hold = () => ({ now: clock.databaseTime(), holdMs: ANNOUNCEMENT_HOLD_MS });
    const refusal = (version: number, sentAgoMs = 5) =>
      recordPoolFreeBound(
        worlds.db.db,
        { orgId: t.orgId, dimension: "prompts", freeBelow: 40, sentAgoMs, source: "refused", version },
        window(),
      );
    const known = async () => findPoolFreeBounds(worlds.db.db, t.orgId, windowOf(t));
    const seen = await known();
    expect(seen.version).toBe(0);

    // A release answered while a refusal was on its way back: the refusal may predate its units.
    await beginAnnouncement(worlds.db.db, { orgId: t.orgId }, hold(), { prompts: 100 });
    await endAnnouncement(worlds.db.db, { orgId: t.orgId });
    expect(await refusal(seen.version)).toBe(false);
    expect((await known()).bounds).toEqual({});

    // Sent after it: recorded. A lowering sent next raises the bound before it goes out...
    expect(await refusal((await known()).version)).toBe(true);
    await beginAnnouncement(worlds.db.db, { orgId: t.orgId }, hold(), { prompts: 25 });
    expect((await known()).bounds).toEqual({ prompts: 65 });
    // ...and while it is in flight nothing is recorded, even quoting the current version (the
    // call may have been answered before its units arrived)...
    expect(await refusal((await known()).version)).toBe(false);
    await endAnnouncement(worlds.db.db, { orgId: t.orgId });
    expect((await known()).bounds).toEqual({ prompts: 65 });
    // ...until it is answered; a call sent before a bound already known is not recorded over it.
    const current = (await known()).version;
    expect(await refusal(current, 5)).toBe(true);
    expect(await refusal(current, 60_000)).toBe(false);

    // A lowering whose end is never written (its process died) holds records back only so long.
    await beginAnnouncement(worlds.db.db, { orgId: t.orgId }, hold(), { prompts: 10 });
    const afterDeath = (await known()).version;
    expect(await refusal(afterDeath)).toBe(false);
    clock.advance(ANNOUNCEMENT_HOLD_MS + 1);
    expect(await refusal(afterDeath)).toBe(true);
  });
});
