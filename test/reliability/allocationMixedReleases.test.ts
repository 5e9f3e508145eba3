import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { forgetPoolFreeBounds } from "../support/allocationWorld.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import {
  DEFAULT_SHAPE,
  MULTI_PROCESS_ENV,
  prepareOrg,
  REBALANCE_SHAPE,
  rebalanceBreaches,
  runRebalanceRound,
  runRound,
  SERVE_START_GUARD_MS,
  type ServeProcess,
  startServe,
  violationsOf,
} from "../support/multiProcessWorkload.ts";
import {
  type CheckedOutRelease,
  checkOutPreviousRelease,
  migrationsOf,
  resolvePreviousRelease,
} from "../support/previousRelease.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * Allocation halfway through a rolling deploy (docs/decisions/0032, 0046, 0047): one `serve` of this
 * checkout and one of the previous release (a git worktree of it, `previousRelease.ts`, which knows
 * fewer migrations) on ONE database already on this checkout's schema, against ONE simulator (gold
 * pool 13 / 800), writing into the same brands at once. They share the lease, the ledger, the
 * tables and the resources record's entries, which both write in the same statements (the fold,
 * docs/decisions/0046, 0047): the previous release reads the tables, this one the entries. The
 * multi-process suite's invariants must hold across the mix: every write
 * succeeds, the upstream never refuses a metered write, no unit is lost, no sub-workspace ends
 * below its usage.
 */

/** The simulator's `used` lags a publish by USED_LAG_MS; the processes' window covers it. */
const USED_LAG_MS = 1_500;
const WINDOW_MS = 4_000;

let db: TestDatabase;
let sim: TestSimulator;
let previous: CheckedOutRelease | undefined;
let mixed: ServeProcess[] = [];
/** The same two releases with a publish-lag window longer than the simulator's lag. */
let lagging: ServeProcess[] = [];
/** …and with a window no test outlasts, for a lag counted in reads (`HIDDEN`). */
let blind: ServeProcess[] = [];
let org: { orgId: string; token: string };

beforeAll(async () => {
  // Throws, never skips, when the history is missing (a shallow clone).
  const release = resolvePreviousRelease();
  previous = await checkOutPreviousRelease(release);
  if (!release.chosenBy.startsWith("SERENITY_PREVIOUS_REF")) {
    expect(migrationsOf(previous.root).length, release.chosenBy).toBeLessThan(migrationsOf(".").length);
  }
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  const common = { databaseUrl: db.url, simulatorUrl: sim.url, env: MULTI_PROCESS_ENV };
  const root = previous.root;
  const checkout = { bin: `${root}/bin/serenity.mjs`, cwd: root };
  const withWindow = { ...common, env: { ...common.env, SERENITY_PUBLISH_LAG_MS: String(WINDOW_MS) } };
  const withLongWindow = { ...common, env: { ...common.env, SERENITY_PUBLISH_LAG_MS: "600000" } };
  [mixed, lagging, blind] = await Promise.all([
    Promise.all([startServe(common), startServe({ ...common, checkout })]),
    Promise.all([startServe(withWindow), startServe({ ...withWindow, checkout })]),
    Promise.all([startServe(withLongWindow), startServe({ ...withLongWindow, checkout })]),
  ]);
  org = await prepareOrg(mixed[0]!.url);
}, SERVE_START_GUARD_MS + 60_000);

afterAll(async () => {
  await Promise.all([...mixed, ...lagging, ...blind].map((process) => process.stop()));
  await sim?.close();
  await db?.destroy();
  await previous?.remove();
});

describe("allocation across this release and the previous one (one database, one simulator)", () => {
  it("writes into one brand from both at once: every write succeeds, no 405, nothing lost, allocation = roundUpToBlock(used + drafted)", async () => {
    await forgetPoolFreeBounds(db.db, org.orgId);
    const report = await runRound(sim.url, mixed, org, DEFAULT_SHAPE, "mixed");
    const described = JSON.stringify(report);

    expect(report.failures, described).toEqual({});
    expect(report.quotaExceeded, described).toBe(0);
    expect(report.refused405, described).toBe(0);
    expect(report.created).toBe(DEFAULT_SHAPE.writes * DEFAULT_SHAPE.textsPerWrite);
    expect(report.poolAfter).toEqual(report.poolBefore);
    expect({ projects: report.child.projects.total, prompts: report.child.prompts.total }).toEqual(
      report.expectedTotals,
    );
    expect(violationsOf(report, DEFAULT_SHAPE)).toEqual([]);
  }, 120_000);

  it.each([
    ["this release", "the previous one", () => mixed, "mixed-rebalance-new"],
    ["the previous release", "this one", () => [...mixed].reverse(), "mixed-rebalance-old"],
  ])(
    "rebalancing by %s lowers a sibling written by %s: zero 405s, nothing lost, none below its usage",
    async (_by, _sibling, processes, label) => {
      await forgetPoolFreeBounds(db.db, org.orgId);
      // The hungry brand writes through the first process, the sibling through the second.
      const report = await runRebalanceRound(sim.url, processes(), org, REBALANCE_SHAPE, label);
      const described = JSON.stringify(report);

      expect(rebalanceBreaches(report), described).toEqual([]);
      expect(report.siblingLowered, described).toBeGreaterThan(0);
    },
    120_000,
  );

  // Each release must see the other's publishes (the tables, still what both read) or it lowers a
  // sibling from a read that misses them: below its usage, or a 405 at the sibling's next write.
  it.each([
    ["this release", "the previous one", () => lagging, "lagging-rebalance-new"],
    ["the previous release", "this one", () => [...lagging].reverse(), "lagging-rebalance-old"],
  ])(
    "under a lagging upstream, rebalancing by %s never lowers a sibling written by %s below what it published",
    async (_by, _sibling, processes, label) => {
      await forgetPoolFreeBounds(db.db, org.orgId);
      const report = await runRebalanceRound(
        sim.url,
        processes(),
        org,
        { ...REBALANCE_SHAPE, usedLagMs: USED_LAG_MS },
        label,
      );
      const described = JSON.stringify(report);

      expect(rebalanceBreaches(report), described).toEqual([]);
    },
    120_000,
  );

  // The same, made certain: the sibling's publish (150 prompts of its 300) stays hidden from every
  // read, then the hungry brand asks for 200 with the pool dry. Planning from the publish, a
  // sibling keeps 200 (100 reclaimed, the rest refused orgPoolExhausted); blind to it, rebalancing
  // takes 200 and leaves the sibling at 100, below its 150 used. Red with a previous release that
  // reads what this one no longer writes (shown against the fold's first release, ADR 0048).
  it.each([
    ["the previous release", "this one", () => [...blind].reverse(), "hidden-rebalance-old"],
    ["this release", "the previous one", () => blind, "hidden-rebalance-new"],
  ])(
    "with the sibling's publish hidden from every read, rebalancing by %s keeps what %s published",
    async (_by, _sibling, processes, label) => {
      await forgetPoolFreeBounds(db.db, org.orgId);
      const report = await runRebalanceRound(sim.url, processes(), org, HIDDEN, label);
      const described = JSON.stringify(report);

      expect(rebalanceBreaches(report), described).toEqual([]);
      expect(report.created.sibling, described).toBe(150);
      expect(report.siblingLowered, described).toBeGreaterThan(0);
    },
    120_000,
  );
});

/** A sibling's one publish hidden from reads (not time: a slow machine cannot end it early). */
const HIDDEN = {
  siblingSlack: 300,
  siblingWrites: [150],
  hungryWrites: [200],
  latencyMs: 0,
  usedLagReads: 1_000,
  siblingFirst: true,
};
