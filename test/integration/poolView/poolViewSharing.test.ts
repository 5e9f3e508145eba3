import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createDatabaseLockProvider } from "../../../src/allocation/databaseAllocationLock.ts";
import type { AllocationUpstream } from "../../../src/allocation/upstreamPort.ts";
import type { Principal } from "../../../src/auth/principal.ts";
import { brands, orgs } from "../../../src/db/schema.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import { reentrant } from "../../../src/locks/reentrantLock.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { OrgService } from "../../../src/orgs/orgService.ts";
import { PoolViewService } from "../../../src/poolView/poolViewService.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { FakeUpstreamError, InMemoryUpstream } from "../../support/inMemoryUpstream.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { nextTurn, waitFor } from "../../support/wait.ts";

/**
 * Pool views of an org the resources record has never seen, asked for at once, share one fill (the
 * first view reads the parent and every brand sub-workspace; a burst of dashboards would otherwise
 * cost one full read each; ADR 0020). The
 * upstream's reads are held at a gate until every caller has passed its tenancy check, so the
 * test sees what the callers did while a read was in flight — not how fast the machine was: each
 * caller decides (join, or read itself) as it passes tenancy, and every read it starts is counted
 * by the time its view resolves, so the counts after the gate opens are exact either way.
 */

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.destroy());

async function world() {
  const PARENT = `parent-${randomUUID()}`;
  const upstream = new InMemoryUpstream();
  upstream.addParent(PARENT, { projects: 13, prompts: 800 });
  const orgId = randomUUID();
  const now = new Date();
  await db.db
    .insert(orgs)
    .values({ id: orgId, name: "Pool org", parentWorkspaceId: PARENT, createdAt: now, updatedAt: now });
  for (const index of [0, 1]) {
    const subWorkspaceId = `sub-${randomUUID()}`;
    upstream.addChild(subWorkspaceId, PARENT, { projects: 1, prompts: 100 });
    await db.db.insert(brands).values({
      orgId,
      name: `Brand ${index}`,
      status: "active",
      subWorkspaceId,
      provisioningStatus: "ready",
      createdAt: now,
      updatedAt: now,
    });
  }

  // Reads wait at the gate; each is counted, with the bearer it carried.
  const reads: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const gated = Object.create(upstream) as AllocationUpstream;
  gated.readResources = async (bearer, workspaceId) => {
    reads.push(bearer);
    await gate;
    if (bearer === "revoked-token") throw new FakeUpstreamError("forbidden");
    return upstream.readResources(bearer, workspaceId);
  };

  // Callers are counted once their tenancy check is done, the last step before the view is read.
  const real = new OrgService({ db: db.db, clock: systemClock });
  let checked = 0;
  const counted = Object.create(real) as OrgService;
  counted.getAccessible = async (principal, id) => {
    const org = await real.getAccessible(principal, id);
    checked += 1;
    return org;
  };

  const events = new EventBus();
  const logger = createLogger({ level: "silent" });
  const env = { SERENITY_DYNAMIC_ALLOCATION: "true" };
  const service = new PoolViewService({
    db: db.db,
    clock: new ManualClock(),
    events,
    logger,
    upstream: gated,
    lock: reentrant(createDatabaseLockProvider({ db: db.db, clock: systemClock, events, logger, env })),
    env,
    orgs: counted,
  });
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
  return { service, orgId, reads, open, member, untilChecked };
}

describe("pool views asked for at once", () => {
  it("share one read: the parent and each brand sub-workspace are read once for six callers", async () => {
    const w = await world();
    const views = Array.from({ length: 6 }, (_, index) =>
      w.service.view(w.member(index % 2 === 0 ? "token-a" : "token-b"), w.orgId),
    );
    await w.untilChecked(6);
    // The first caller's read lists its brands first (a database round trip): wait for its reads.
    await waitFor(() => w.reads.length >= 3, { what: "the first caller's reads" });
    expect(w.reads).toHaveLength(3);
    w.open();
    const answered = await Promise.all(views);
    for (const view of answered) {
      expect(view.brands.map((brand) => brand.projects?.total)).toEqual([1, 1]);
      expect(view.pool?.projects.total).toBe(11);
    }
    expect(w.reads).toHaveLength(3);
  });

  it("a failed read is shared only with callers of the same bearer; the others read again, once, together", async () => {
    const w = await world();
    const first = w.service.view(w.member("revoked-token"), w.orgId).then(
      () => "answered",
      (error: unknown) => (error instanceof Error ? error.constructor.name : "thrown"),
    );
    await w.untilChecked(1);
    // The first caller's fill is the one in flight once one of its reads is held at the gate (the
    // fill is registered before its first read): only then do the others arrive, to join it. One
    // turn after its tenancy check was not enough under load: its record load was still running,
    // and another bearer's fill could start first (seen once in a loaded run).
    await waitFor(() => w.reads.length > 0, { what: "the first caller's fill under way" });
    const sameBearer = w.service.view(w.member("revoked-token"), w.orgId).then(
      () => "answered",
      () => "failed",
    );
    const others = ["token-b", "token-c", "token-b"].map((bearer) =>
      w.service.view(w.member(bearer), w.orgId),
    );
    await w.untilChecked(5);
    await waitFor(() => w.reads.length >= 3, { what: "the first caller's reads" });
    expect(w.reads).toEqual(["revoked-token", "revoked-token", "revoked-token"]);
    w.open();
    expect(await first).not.toBe("answered");
    expect(await sameBearer).toBe("failed");
    const views = await Promise.all(others);
    expect(views.map((view) => view.pool?.projects.total)).toEqual([11, 11, 11]);
    // One re-read of the parent and both brands, by whichever of them looked first.
    expect(w.reads.slice(3)).toHaveLength(3);
    expect(new Set(w.reads.slice(3)).size).toBe(1);
  });
});
