import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { AllocationDeps } from "../../../src/allocation/allocationDeps.ts";
import { createAllocationGuard } from "../../../src/allocation/allocationGuard.ts";
import { AllocationService } from "../../../src/allocation/allocationService.ts";
import { createDatabaseLockProvider } from "../../../src/allocation/databaseAllocationLock.ts";
import { listLedgerEntries } from "../../../src/db/allocation/listLedgerEntries.ts";
import { type Need, RELEASE_FLOOR } from "../../../src/domain/allocation.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import type { MeteredWriteContext } from "../../../src/domain/meteredWrites.ts";
import { reentrant } from "../../../src/locks/reentrantLock.ts";
import { EventBus, type EventName, type ServiceEvents } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { OrgService } from "../../../src/orgs/orgService.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ensureUnderLock } from "../../support/ensureUnderLock.ts";
import { FakeUpstreamError, InMemoryUpstream } from "../../support/inMemoryUpstream.ts";
import { LogCapture } from "../../support/logCapture.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * The guard's rules against the in-memory upstream model (fast, exact call counts), with the real
 * database lock and ledger. The same scenarios run against the simulator over real HTTP in
 * guardSimulator.test.ts.
 */

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.destroy());

const PARENT = "parent-1";

function setup(
  options: { env?: Record<string, string>; parent?: { projects: number; prompts: number } } = {},
) {
  const env: Record<string, string> = { SERENITY_DYNAMIC_ALLOCATION: "true", ...options.env };
  const clock = new ManualClock();
  const events = new EventBus();
  const logs = new LogCapture();
  const logger = createLogger({ level: "debug", destination: logs });
  const upstream = new InMemoryUpstream();
  upstream.addParent(PARENT, options.parent ?? { projects: 13, prompts: 800 });
  // The lock waits on real contention with the system clock; retry and settle waits use the manual one.
  const lock = reentrant(createDatabaseLockProvider({ db: db.db, clock: systemClock, events, logger, env }));
  const deps: AllocationDeps = { db: db.db, clock, events, logger, upstream, lock, env };
  const seen: { name: EventName; payload: unknown }[] = [];
  const names: EventName[] = [
    "allocation.headroomCheck",
    "allocation.topUp",
    "allocation.rejection",
    "allocation.release",
    "allocation.quotaRetry",
    "allocation.notReadyRetry",
  ];
  for (const name of names) events.on(name, (payload) => seen.push({ name, payload }));
  const orgId = randomUUID();
  const guardFor = (subWorkspaceId: string | null, extra: Partial<MeteredWriteContext> = {}) =>
    createAllocationGuard(deps, {
      orgId,
      brandId: randomUUID(),
      subWorkspaceId,
      parentWorkspaceId: PARENT,
      requestId: `req-${randomUUID()}`,
      bearer: "user-token",
      flat: false,
      metering: "metered",
      ...extra,
    });
  const target = (subWorkspaceId: string) => ({
    orgId,
    brandId: randomUUID(),
    subWorkspaceId,
    requestId: `req-${randomUUID()}`,
    bearer: "user-token",
  });
  // The top-up rules on their own, with their result; the guard runs them inside its sections.
  const ensure = (subWorkspaceId: string, need: Need, path: "failFast" | "settle" = "failFast") =>
    ensureUnderLock(deps, target(subWorkspaceId), need, path);
  // §7 with its report, on the request path (the guard's own release reports nothing).
  const service = new AllocationService({ ...deps, orgs: new OrgService({ db: db.db, clock }) });
  const release = (subWorkspaceId: string, options: Parameters<AllocationService["releaseSurplus"]>[1]) =>
    service.releaseSurplus(target(subWorkspaceId), { path: "failFast", ...options });
  const child = (totals?: { projects: number; prompts: number }) => {
    const id = `sub-${randomUUID()}`;
    upstream.addChild(id, PARENT, totals);
    return id;
  };
  const eventsOf = <K extends EventName>(name: K) =>
    seen.filter((event) => event.name === name).map((event) => event.payload as ServiceEvents[K]);
  return { env, clock, upstream, deps, guardFor, ensure, release, child, orgId, logs, eventsOf };
}

async function expectCode(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ServiceError);
  expect((error as ServiceError).code).toBe(code);
}

describe("kill switch and misconfiguration", () => {
  it("flag off: every method is a pass-through with zero upstream calls", async () => {
    const t = setup({ env: { SERENITY_DYNAMIC_ALLOCATION: "True" } });
    const ws = t.child();
    const guard = t.guardFor(ws, { subWorkspaceId: null, parentWorkspaceId: null });
    expect(await guard.section({ prompts: 500 }, async () => "ran")).toBe("ran");
    expect(await guard.singleWrite("projectCreate", { projects: 1 }, async () => "written")).toBe("written");
    await guard.releaseSurplus(RELEASE_FLOOR, "release");
    expect(t.upstream.calls).toEqual([]);
    expect(t.eventsOf("allocation.release")).toEqual([]);
    expect(await listLedgerEntries(db.db, t.orgId, { limit: 1 })).toEqual([]);
  });

  it("flag off: a metered 405 maps straight to quotaExceeded, without ensure or retry", async () => {
    const t = setup({ env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const ws = t.child();
    let attempts = 0;
    await expectCode(
      t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, async () => {
        attempts++;
        await t.upstream.meteredWrite(ws, { projects: 1 });
      }),
      "quotaExceeded",
    );
    expect(attempts).toBe(1);
    expect(t.upstream.count("read")).toBe(0);
    expect(t.eventsOf("allocation.rejection")).toEqual([{ orgId: t.orgId, reason: "quotaExceeded" }]);
  });

  it("flag on, flat brand: never guarded (the pool is its allocation)", async () => {
    const t = setup();
    const guard = t.guardFor(null, { flat: true });
    expect(await guard.singleWrite("projectCreate", { projects: 1 }, async () => 1)).toBe(1);
    expect(t.upstream.calls).toEqual([]);
  });

  it("flag on, missing sub-workspace or parent id: allocationMisconfigured when the guard is built", async () => {
    const t = setup();
    expect(() => t.guardFor(null)).toThrow(expect.objectContaining({ code: "allocationMisconfigured" }));
    expect(() => t.guardFor(t.child(), { parentWorkspaceId: null })).toThrow(
      expect.objectContaining({ code: "allocationMisconfigured" }),
    );
    expect(() => t.guardFor(PARENT)).toThrow(expect.objectContaining({ code: "workspaceMisconfigured" }));
    expect(t.upstream.calls).toEqual([]);
  });

  it("the flag is read per call: flipping it on later makes the same guard fail loud", async () => {
    const t = setup({ env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const guard = t.guardFor(null);
    expect(await guard.section({ projects: 1 }, async () => "ran")).toBe("ran");
    t.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    await expectCode(
      guard.section({ projects: 1 }, async () => "ran"),
      "allocationMisconfigured",
    );
    expect(t.upstream.calls).toEqual([]);
  });
});

describe("ensure", () => {
  it("hot path: exactly one upstream call", async () => {
    const t = setup();
    const ws = t.child({ projects: 2, prompts: 100 });
    expect(await t.ensure(ws, { projects: 1, prompts: 100 })).toEqual({ toppedUp: false });
    expect(t.upstream.calls.map((call) => call.op)).toEqual(["read"]);
    expect(t.eventsOf("allocation.headroomCheck")).toEqual([{ orgId: t.orgId, outcome: "hot_path" }]);
  });

  it("top-up: exactly two calls, one transfer carrying every short dimension", async () => {
    const t = setup();
    const ws = t.child();
    expect(await t.ensure(ws, { projects: 1, prompts: 1 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 100 },
    });
    expect(t.upstream.calls.map((call) => [call.op, call.targets])).toEqual([
      ["read", undefined],
      ["transfer", { projects: 1, prompts: 100 }],
    ]);
    expect(t.upstream.resources(PARENT)).toMatchObject({ projects: { total: 12 }, prompts: { total: 700 } });
    expect(t.eventsOf("allocation.headroomCheck")).toEqual([{ orgId: t.orgId, outcome: "topped_up" }]);
    expect(t.eventsOf("allocation.topUp")).toEqual([
      { orgId: t.orgId, path: "fail_fast", durationSeconds: 0 },
    ]);
  });

  it("1 prompt on an empty sub-workspace tops up to 100; 101 → 200", async () => {
    const t = setup();
    const one = t.child();
    const many = t.child();
    expect(await t.ensure(one, { prompts: 1 })).toMatchObject({ newTotal: { prompts: 100 } });
    expect(await t.ensure(many, { prompts: 101 })).toMatchObject({ newTotal: { prompts: 200 } });
    expect(t.upstream.calls.filter((call) => call.op === "transfer").map((call) => call.targets)).toEqual([
      { prompts: 100 },
      { prompts: 200 },
    ]);
  });

  it("records the top-up in the ledger", async () => {
    const t = setup();
    const ws = t.child({ projects: 1, prompts: 100 });
    expect(await t.ensure(ws, { projects: 2 })).toMatchObject({ toppedUp: true });
    const [entry] = await listLedgerEntries(db.db, t.orgId, { limit: 10 });
    expect(entry).toMatchObject({
      orgId: t.orgId,
      subWorkspaceId: ws,
      reason: "topUp",
      before: { projects: 1, prompts: 100 },
      after: { projects: 2, prompts: 100 },
      outcome: "applied",
      errorCode: null,
    });
    expect(entry?.requestId).toMatch(/^req-/);
  });

  it("a ceiling → brandAiLimit with nothing transferred; a malformed ceiling is ignored with a warning", async () => {
    const t = setup({
      env: { SERENITY_BRAND_AI_CEILING_PROMPTS: "300", SERENITY_BRAND_AI_CEILING_PROJECTS: "two" },
    });
    const ws = t.child();
    await expectCode(t.ensure(ws, { projects: 5, prompts: 301 }), "brandAiLimit");
    expect(t.upstream.calls.map((call) => call.op)).toEqual(["read"]);
    expect(t.upstream.resources(ws).prompts.total).toBe(0);
    expect(t.logs.lines.some((line) => line.includes("SERENITY_BRAND_AI_CEILING_PROJECTS"))).toBe(true);
    expect(await t.ensure(ws, { projects: 5, prompts: 300 })).toMatchObject({ toppedUp: true });
    const entries = await listLedgerEntries(db.db, t.orgId, { limit: 10 });
    expect(entries.map((entry) => [entry.outcome, entry.errorCode])).toEqual([
      ["applied", null],
      ["rejected", "brandAiLimit"],
    ]);
    expect(t.eventsOf("allocation.rejection")).toEqual([{ orgId: t.orgId, reason: "brandAiLimit" }]);
  });

  it("pool exhaustion → orgPoolExhausted, the pool unchanged, no parent read", async () => {
    const t = setup({ parent: { projects: 2, prompts: 100 } });
    const ws = t.child();
    await expectCode(t.ensure(ws, { projects: 1, prompts: 101 }), "orgPoolExhausted");
    expect(t.upstream.resources(PARENT)).toMatchObject({ projects: { total: 2 }, prompts: { total: 100 } });
    // The block-rounded top-up, then the exact one (§11 step 1): both refused; no sibling to
    // reclaim from, so no rebalance; still never a parent read.
    expect(t.upstream.calls.map((call) => [call.op, call.workspaceId, call.targets])).toEqual([
      ["read", ws, undefined],
      ["transfer", ws, { projects: 1, prompts: 200 }],
      ["transfer", ws, { projects: 1, prompts: 101 }],
    ]);
    expect(t.eventsOf("allocation.rejection")).toEqual([{ orgId: t.orgId, reason: "orgPoolExhausted" }]);
    const entries = await listLedgerEntries(db.db, t.orgId, { limit: 2 });
    expect(entries.map(({ reason, outcome, errorCode }) => ({ reason, outcome, errorCode }))).toEqual([
      { reason: "exact", outcome: "failed", errorCode: "orgPoolExhausted" },
      { reason: "topUp", outcome: "failed", errorCode: "orgPoolExhausted" },
    ]);
  });

  it("not ready on the request path → workspaceBusy at once (no settle poll)", async () => {
    const t = setup();
    const ws = t.child();
    t.upstream.failTransfersNotReady(ws, 1);
    await expectCode(t.ensure(ws, { projects: 1 }), "workspaceBusy");
    expect(t.upstream.count("transfer")).toBe(1);
  });

  it("not ready on the settle path → retried with 1/2/3 s backoff through the clock", async () => {
    const t = setup();
    const ws = t.child();
    t.upstream.failTransfersNotReady(ws, 3);
    const ensured = t.ensure(ws, { projects: 1 }, "settle");
    for (const wait of [1_000, 2_000, 3_000]) {
      await t.clock.untilSleeping();
      t.clock.advance(wait);
    }
    expect(await ensured).toMatchObject({ toppedUp: true });
    expect(t.upstream.count("transfer")).toBe(4);
    expect(t.eventsOf("allocation.notReadyRetry")).toHaveLength(3);
    expect(t.eventsOf("allocation.topUp")[0]).toMatchObject({ path: "settle", durationSeconds: 6 });
  });

  it("an upstream 403 on the read → forbidden, nothing transferred", async () => {
    const t = setup();
    await expectCode(t.ensure("sub-unknown", { projects: 1 }), "forbidden");
    expect(t.upstream.count("transfer")).toBe(0);
  });
});

describe("section and retryOnQuota", () => {
  it("section: ensure, then the write, under the lock; the next reader sees staged units", async () => {
    const t = setup();
    const ws = t.child();
    const guard = t.guardFor(ws);
    await Promise.all([
      guard.singleWrite("projectCreate", { projects: 1 }, () => t.upstream.meteredWrite(ws, { projects: 1 })),
      t
        .guardFor(ws)
        .singleWrite("projectCreate", { projects: 1 }, () => t.upstream.meteredWrite(ws, { projects: 1 })),
    ]);
    expect(t.upstream.resources(ws).projects).toEqual({ used: 0, drafted: 2, total: 2 });
    expect(t.upstream.calls.map((call) => call.op)).toEqual([
      "read",
      "transfer",
      "write",
      "read",
      "transfer",
      "write",
    ]);
  });

  it("recovered: a stale-low read is fixed by re-ensuring, and the write is retried after 3 s", async () => {
    const t = setup();
    const ws = t.child({ projects: 1, prompts: 100 });
    await t.upstream.meteredWrite(ws, { projects: 1 });
    await t.upstream.publish(ws);
    // Just after a publish, the read still says used = 0: the guard sees room that is not there.
    t.upstream.staleUsedReads(ws, 1);
    let attempts = 0;
    const written = t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, async () => {
      attempts++;
      await t.upstream.meteredWrite(ws, { projects: 1 });
      return "ok";
    });
    await t.clock.untilSleeping();
    t.clock.advance(3_000);
    expect(await written).toBe("ok");
    expect(attempts).toBe(2);
    expect(t.upstream.resources(ws).projects).toEqual({ used: 1, drafted: 1, total: 2 });
    expect(t.upstream.calls.map((call) => call.op)).toEqual([
      "write",
      "publish",
      "read",
      "write",
      "read",
      "transfer",
      "write",
    ]);
    expect(t.eventsOf("allocation.quotaRetry")).toEqual([
      { callSite: "projectCreate", outcome: "recovered" },
    ]);
  });

  it("publish ({}) re-check: an over-committed sub-workspace is topped up to used + drafted", async () => {
    const t = setup();
    const ws = t.child({ projects: 2, prompts: 100 });
    await t.upstream.meteredWrite(ws, { projects: 2 });
    // An operator lowered the allocation below what is staged (e.g. a release from a stale read).
    await t.upstream.transfer("x", ws, { projects: 1 });
    expect(await t.ensure(ws, {})).toEqual({
      toppedUp: true,
      newTotal: { projects: 2, prompts: 100 },
    });
  });

  it("exhausted: three retries 3 s apart, then quotaExceeded; the 9 s budget is shared by the request", async () => {
    const t = setup();
    const ws = t.child({ projects: 5, prompts: 500 });
    const guard = t.guardFor(ws);
    let attempts = 0;
    const alwaysQuota = async () => {
      attempts++;
      throw new FakeUpstreamError("meteredQuota");
    };
    const first = guard.singleWrite("promptCreate", {}, alwaysQuota);
    for (let retry = 0; retry < 3; retry++) {
      await t.clock.untilSleeping();
      t.clock.advance(3_000);
    }
    await expectCode(first, "quotaExceeded");
    expect(attempts).toBe(4);

    // A second write of the same request (its guard) has no budget left: no wait, straight to
    // exhausted (a wait would hang on the manual clock, which nobody advances now).
    attempts = 0;
    await expectCode(guard.singleWrite("publish", {}, alwaysQuota), "quotaExceeded");
    expect(attempts).toBe(1);
    expect(t.eventsOf("allocation.quotaRetry")).toEqual([
      { callSite: "promptCreate", outcome: "exhausted" },
      { callSite: "publish", outcome: "exhausted" },
    ]);
  });

  it("abandoned: a non-quota error on a retry propagates as is", async () => {
    const t = setup();
    const ws = t.child({ projects: 5, prompts: 500 });
    let attempts = 0;
    const result = t.guardFor(ws).singleWrite("modelAdd", {}, async () => {
      attempts++;
      throw new FakeUpstreamError(attempts === 1 ? "meteredQuota" : "conflict");
    });
    await t.clock.untilSleeping();
    t.clock.advance(3_000);
    await expect(result).rejects.toMatchObject({ kind: "conflict" });
    expect(t.eventsOf("allocation.quotaRetry")).toEqual([{ callSite: "modelAdd", outcome: "abandoned" }]);
  });

  it("abandoned: a failing re-ensure (pool exhausted) propagates its own error", async () => {
    const t = setup({ parent: { projects: 1, prompts: 0 } });
    const ws = t.child({ projects: 1, prompts: 0 });
    await t.upstream.meteredWrite(ws, { projects: 1 });
    await t.upstream.publish(ws);
    t.upstream.staleUsedReads(ws, 1);
    await expectCode(
      t
        .guardFor(ws)
        .singleWrite("projectCreate", { projects: 1 }, () => t.upstream.meteredWrite(ws, { projects: 1 })),
      "orgPoolExhausted",
    );
    expect(t.eventsOf("allocation.quotaRetry")).toEqual([
      { callSite: "projectCreate", outcome: "abandoned" },
    ]);
  });

  it("a non-quota error on the first attempt propagates without any retry", async () => {
    const t = setup();
    const ws = t.child({ projects: 5, prompts: 500 });
    await expect(
      t.guardFor(ws).singleWrite("publish", {}, () => Promise.reject(new FakeUpstreamError("gone"))),
    ).rejects.toMatchObject({ kind: "gone" });
    expect(t.eventsOf("allocation.quotaRetry")).toEqual([]);
  });
});

describe("releaseSurplus", () => {
  it("{5, 800} with no usage: dry run makes zero mutating calls and reports {1, 100}", async () => {
    const t = setup();
    const ws = t.child({ projects: 5, prompts: 800 });
    const report = await t.release(ws, { floor: RELEASE_FLOOR, dryRun: true });
    expect(report).toMatchObject({
      outcome: "dryRun",
      before: { projects: 5, prompts: 800 },
      target: { projects: 1, prompts: 100 },
      returned: { projects: 4, prompts: 700 },
    });
    expect(t.upstream.calls.map((call) => call.op)).toEqual(["read"]);
  });

  it("{5, 800} with no usage: the real run leaves {1, 100} and the parent grows by exactly {4, 700}", async () => {
    const t = setup();
    const ws = t.child({ projects: 5, prompts: 800 });
    const parentBefore = t.upstream.resources(PARENT);
    const report = await t.release(ws, { floor: RELEASE_FLOOR });
    expect(report).toMatchObject({ outcome: "released", after: { projects: 1, prompts: 100 } });
    const parentAfter = t.upstream.resources(PARENT);
    expect(parentAfter.projects.total - parentBefore.projects.total).toBe(4);
    expect(parentAfter.prompts.total - parentBefore.prompts.total).toBe(700);
    expect(t.upstream.calls.filter((call) => call.op === "transfer").map((call) => call.targets)).toEqual([
      { projects: 1, prompts: 100 },
    ]);
    const [entry] = await listLedgerEntries(db.db, t.orgId, { limit: 1 });
    expect(entry).toMatchObject({
      reason: "release",
      outcome: "applied",
      after: { projects: 1, prompts: 100 },
    });
  });

  it("nothing to release, requires decommission, and typed errors", async () => {
    const t = setup();
    const tight = t.child({ projects: 1, prompts: 100 });
    expect(await t.release(tight, { floor: RELEASE_FLOOR })).toMatchObject({
      outcome: "nothingToRelease",
    });
    const empty = t.child({ projects: 2, prompts: 100 });
    expect(
      await t.release(empty, { floor: { projects: 0, prompts: 100 }, reason: "deactivate" }),
    ).toMatchObject({ outcome: "requiresDecommission", requiresDecommission: ["projects"] });
    expect(t.upstream.resources(empty).projects.total).toBe(2);

    const settling = t.child({ projects: 3, prompts: 300 });
    t.upstream.failTransfersNotReady(settling, 1);
    expect(await t.release(settling, { floor: RELEASE_FLOOR })).toMatchObject({
      outcome: "error",
      errorCode: "workspaceBusy",
    });
    // The guard's own release is best effort: it never throws, and logs the typed code it met.
    await expect(t.guardFor("sub-unknown").releaseSurplus(RELEASE_FLOOR, "release")).resolves.toBeUndefined();
    expect(
      t.logs.lines.some(
        (line) => line.includes("left for the sweep") && line.includes('"errorCode":"forbidden"'),
      ),
    ).toBe(true);
    expect(t.eventsOf("allocation.release").map((event) => event.outcome)).toEqual([
      "nothingToRelease",
      "requiresDecommission",
      "error",
      "error",
    ]);
  });

  it("counts drafted units: a staged write is never pushed over the limit", async () => {
    const t = setup();
    const ws = t.child({ projects: 4, prompts: 800 });
    await t.upstream.meteredWrite(ws, { projects: 2, prompts: 150 });
    expect(await t.release(ws, { floor: RELEASE_FLOOR })).toMatchObject({
      outcome: "released",
      after: { projects: 2, prompts: 200 },
    });
  });
});

describe("AllocationService.releaseSurplus (the sweep's settle path)", () => {
  it("retries not-ready with 1/2/3 s backoff, records reason sweep, and ignores the kill switch", async () => {
    const t = setup({ env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const service = new AllocationService({ ...t.deps, orgs: new OrgService({ db: db.db, clock: t.clock }) });
    const target = (subWorkspaceId: string) => ({
      orgId: t.orgId,
      brandId: null,
      subWorkspaceId,
      requestId: null,
      bearer: "operator-token",
    });

    const settles = t.child({ projects: 3, prompts: 300 });
    t.upstream.failTransfersNotReady(settles, 2);
    const released = service.releaseSurplus(target(settles), { floor: RELEASE_FLOOR, reason: "sweep" });
    for (const wait of [1_000, 2_000]) {
      await t.clock.untilSleeping();
      t.clock.advance(wait);
    }
    expect(await released).toMatchObject({ outcome: "released", after: { projects: 1, prompts: 100 } });
    const [entry] = await listLedgerEntries(db.db, t.orgId, { limit: 1 });
    expect(entry).toMatchObject({ reason: "sweep", outcome: "applied" });

    const zombie = t.child({ projects: 3, prompts: 300 });
    t.upstream.failTransfersNotReady(zombie, 10);
    const failed = service.releaseSurplus(target(zombie), { floor: RELEASE_FLOOR, reason: "sweep" });
    for (const wait of [1_000, 2_000, 3_000]) {
      await t.clock.untilSleeping();
      t.clock.advance(wait);
    }
    expect(await failed).toMatchObject({ outcome: "error", errorCode: "workspaceBusy" });
    expect(t.upstream.count("transfer", zombie)).toBe(4);
    expect(t.eventsOf("allocation.notReadyRetry")).toHaveLength(5);
  });
});
