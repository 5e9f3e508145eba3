import { afterEach, describe, expect, it } from "vitest";

import type { Principal } from "../../../src/auth/principal.ts";
import { brands } from "../../../src/db/schema.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import { OrgService } from "../../../src/orgs/orgService.ts";
import { PoolViewService } from "../../../src/poolView/poolViewService.ts";
import { type AllocationWorld, startAllocationWorld } from "../../support/allocationWorld.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { HELD_UNTIL_RELEASED_MS } from "../../support/simulator.ts";
import { nextTurn, waitFor } from "../../support/wait.ts";

/**
 * poolViewSharing.test.ts's cases on the simulator over real HTTP with the real gateway client:
 * pool views of an org the resources record has never seen, asked for at once, share one fill. The
 * simulator holds the first fill's resources reads until every caller has passed its tenancy
 * check, so the test sees what the callers did while a read was in flight; the reads are counted
 * from the simulator's call log.
 */

// A database per test: an org owns its parent workspace, and every world's simulator seeds the same
// gold parent id.
let db: TestDatabase | undefined;
let t: AllocationWorld | undefined;
afterEach(async () => {
  await t?.close();
  await db?.destroy();
  t = undefined;
  db = undefined;
});

/** The upstream reads of one fill of an org with two brands: the parent's family and resources, and each brand's resources. */
const FILL_READS = 4;

async function world() {
  const database = (db = await createTestDatabase());
  t = await startAllocationWorld(database);
  const orgId = t.orgId;
  // The world's org owns the gold parent (startAllocationWorld).
  const now = new Date();
  for (const index of [0, 1]) {
    const subWorkspaceId = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await database.db.insert(brands).values({
      orgId,
      name: `Brand ${index}`,
      status: "active",
      subWorkspaceId,
      provisioningStatus: "ready",
      createdAt: now,
      updatedAt: now,
    });
  }
  // One fill's four reads (the parent's family and resources, each brand's resources) wait in the
  // simulator until the test releases them.
  await t.sim.control("/faults", {
    match: { method: "GET", pathPattern: "/(resources|family)$" },
    action: { delayMs: HELD_UNTIL_RELEASED_MS },
    times: FILL_READS,
  });
  await t.clearCalls();

  // Callers are counted once their tenancy check is done, the last step before the view is read.
  const real = new OrgService({ db: database.db, clock: systemClock });
  let checked = 0;
  const counted = Object.create(real) as OrgService;
  counted.getAccessible = async (principal, id) => {
    const org = await real.getAccessible(principal, id);
    checked += 1;
    return org;
  };
  const service = new PoolViewService({ ...t.deps, clock: new ManualClock(), orgs: counted });
  const member = (bearer: string): Principal => ({
    sub: `member-${bearer}`,
    orgIds: [orgId],
    isAdmin: false,
    bearer,
  });
  /** Until `n` callers passed their tenancy check and had a turn to act on it. */
  const untilChecked = async (n: number) => {
    await waitFor(() => checked === n, { timeoutMs: 30_000, what: `${n} tenancy checks` });
    await nextTurn();
  };
  /** Callers that found a fill in flight and wait on it (the join a test releases the upstream after). */
  let joined = 0;
  t.deps.events.on("allocation.poolViewJoinedFill", ({ orgId: joinedOrg }) => {
    if (joinedOrg === orgId) joined += 1;
  });
  const untilJoined = (n: number) =>
    waitFor(() => joined === n, { timeoutMs: 30_000, what: `${n} callers joined the fill` });
  const sim = t.sim;
  /** The statuses of the fill reads the simulator answered, in the order it answered them. */
  const reads = async () =>
    (await sim.calls())
      .filter((call) => call.path.endsWith("/resources") || call.path.endsWith("/family"))
      .map((call) => call.status);
  return { service, orgId, member, untilChecked, untilJoined, sim, reads };
}

describe("pool views asked for at once, on the simulator", () => {
  it("share one read: the parent and each brand sub-workspace are read once for six callers", async () => {
    const w = await world();
    const views = Array.from({ length: 6 }, (_, index) =>
      w.service.view(w.member(index % 2 === 0 ? "token-a" : "token-b"), w.orgId),
    );
    await w.untilChecked(6);
    await w.untilJoined(5);
    await waitFor(() => w.sim.held() === FILL_READS, { what: "the first caller's reads held" });
    w.sim.release();
    const answered = await Promise.all(views);
    for (const view of answered) {
      expect(view.brands.map((brand) => brand.projects?.total)).toEqual([1, 1]);
      expect(view.pool?.projects.total).toBe(11);
    }
    expect(await w.reads()).toEqual([200, 200, 200, 200]);
  });

  it("a failed read is shared only with callers of the same bearer; the others read again, once, together", async () => {
    const w = await world();
    await w.sim.control("/tokens/revoke", { token: "revoked-token" });
    const first = w.service.view(w.member("revoked-token"), w.orgId).then(
      () => "answered",
      () => "failed",
    );
    await w.untilChecked(1);
    // The first caller's fill is the one in flight once one of its reads is held upstream (the fill
    // is registered before its first read): only then do the others arrive, to join it.
    await waitFor(() => w.sim.held() > 0, { what: "the first caller's fill under way" });
    const sameBearer = w.service.view(w.member("revoked-token"), w.orgId).then(
      () => "answered",
      () => "failed",
    );
    const others = ["token-b", "token-c", "token-b"].map((bearer) =>
      w.service.view(w.member(bearer), w.orgId),
    );
    await w.untilChecked(5);
    // Every later caller waits on the first caller's fill before it fails: one that were still
    // loading the record when the fill ended would start its own (driven by the join, not by time).
    await w.untilJoined(4);
    await waitFor(() => w.sim.held() === FILL_READS, { what: "the first caller's reads held" });
    w.sim.release();
    expect(await first).toBe("failed");
    expect(await sameBearer).toBe("failed");
    const views = await Promise.all(others);
    expect(views.map((view) => view.pool?.projects.total)).toEqual([11, 11, 11]);
    // The revoked token's one fill, then one more fill for the three other callers together.
    const statuses = await w.reads();
    expect(statuses).toHaveLength(2 * FILL_READS);
    expect(statuses.slice(0, FILL_READS).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(FILL_READS)).toEqual([200, 200, 200, 200]);
  });
});
