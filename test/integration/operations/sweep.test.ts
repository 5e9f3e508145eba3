import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { CheckpointError } from "../../../src/operations/checkpoint.ts";
import { runSweep, type SweepOptions } from "../../../src/operations/sweep.ts";
import {
  ledgerOf,
  mutatingCalls,
  type OperatorWorld,
  PARENT,
  seedOrg,
  startOperatorWorld,
  THREE_CARVED_BRANDS,
  TOKEN,
} from "../../support/operatorWorld.ts";

/**
 * `serenity sweep` as a service (spec/operations.md §1) on the real runtime: the release goes over
 * real HTTP to the gold simulator, transfers land in the ledger, the checkpoint is a real file.
 *
 * Every test seeds `THREE_CARVED_BRANDS` (operatorWorld.ts, with the numbers a sweep must give).
 */

let world: OperatorWorld;
let dir: string;
let checkpointCounter = 0;

beforeAll(async () => {
  world = await startOperatorWorld();
  dir = await mkdtemp(path.join(tmpdir(), "serenity-sweep-"));
});
afterAll(() => world?.close());
beforeEach(async () => {
  await world.sim.control("/reset", {});
  await world.sim.control("/faults", undefined, "DELETE");
  world.clock.sleeps.length = 0;
});

async function setup() {
  const seeded = await seedOrg(world, THREE_CARVED_BRANDS);
  await world.sim.clearCalls();
  const checkpointFile = path.join(dir, `checkpoint-${++checkpointCounter}.json`);
  const [a, b, c] = seeded.brands as [
    (typeof seeded.brands)[0],
    (typeof seeded.brands)[0],
    (typeof seeded.brands)[0],
  ];
  return { ...seeded, a, b, c, checkpointFile };
}

function sweep(options: Partial<SweepOptions> & Pick<SweepOptions, "checkpointFile">) {
  return runSweep(
    {
      db: world.runtime.database.db,
      clock: world.clock,
      logger: world.runtime.logger,
      allocation: world.runtime.services.allocation,
    },
    { bearer: TOKEN, ...options },
  );
}

function failReads(subWorkspaceId: string, status: number) {
  return world.sim.control("/faults", {
    match: { method: "GET", pathPattern: `${subWorkspaceId}/resources$` },
    action: { status, body: { message: "fault" } },
  });
}

describe("serenity sweep (service)", () => {
  it("a dry run makes zero mutating upstream calls, reports the targets and writes no checkpoint", async () => {
    const { orgId, a, b, c, checkpointFile } = await setup();

    const report = await sweep({ orgIds: [orgId], dryRun: true, checkpointFile });

    expect(await mutatingCalls(world)).toEqual([]);
    expect(report.counts).toMatchObject({ dryRun: 3, released: 0, error: 0 });
    const byBrand = Object.fromEntries(report.items.map((item) => [item.brandId, item]));
    expect(byBrand[a.brandId]).toMatchObject({
      outcome: "dryRun",
      before: { projects: 5, prompts: 300 },
      target: { projects: 1, prompts: 200 },
      returned: { projects: 4, prompts: 100 },
    });
    expect(byBrand[b.brandId]).toMatchObject({
      target: { projects: 2, prompts: 100 },
      returned: { projects: 1, prompts: 100 },
    });
    expect(byBrand[c.brandId]).toMatchObject({ returned: { projects: 0, prompts: 0 } });
    expect(report.returnedByPool).toEqual({ [PARENT]: { projects: 5, prompts: 200 } });
    expect(await world.sim.totals(a.subWorkspaceId)).toEqual({ projects: 5, prompts: 300 });
    expect(await ledgerOf(world, orgId)).toEqual([]);
    await expect(readFile(checkpointFile, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a real sweep releases to the floor, returns the units to the pool and writes sweep ledger rows", async () => {
    const { orgId, a, b, c, checkpointFile } = await setup();
    const poolBefore = await world.sim.totals(PARENT);

    const report = await sweep({ orgIds: [orgId], checkpointFile });

    expect(report.counts).toMatchObject({ released: 2, nothingToRelease: 1, error: 0 });
    expect(report.aborted).toBe(false);
    expect(report.unexpectedErrors).toBe(0);
    expect(await world.sim.totals(a.subWorkspaceId)).toEqual({ projects: 1, prompts: 200 });
    expect(await world.sim.totals(b.subWorkspaceId)).toEqual({ projects: 2, prompts: 100 });
    expect(await world.sim.totals(c.subWorkspaceId)).toEqual({ projects: 1, prompts: 100 });
    expect(await world.sim.totals(PARENT)).toEqual({
      projects: poolBefore.projects + 5,
      prompts: poolBefore.prompts + 200,
    });
    expect(report.returnedByPool).toEqual({ [PARENT]: { projects: 5, prompts: 200 } });
    expect(await mutatingCalls(world)).toHaveLength(2);

    const ledger = await ledgerOf(world, orgId);
    expect(ledger).toHaveLength(2);
    for (const row of ledger) expect(row).toMatchObject({ reason: "sweep", outcome: "applied" });
    expect(ledger.map((row) => row.brandId).sort()).toEqual([a.brandId, b.brandId].sort());

    // The default pause runs through the clock, after every item but the last.
    expect(world.clock.sleeps).toEqual([300, 300]);
    expect(JSON.parse(await readFile(checkpointFile, "utf8"))).toEqual({
      version: 1,
      done: [a.brandId, b.brandId, c.brandId],
      failed: {},
    });
  });

  it("a resume skips done items, skips failed ones, and retries them only with retryFailed", async () => {
    const { orgId, a, b, checkpointFile } = await setup();
    await failReads(b.subWorkspaceId, 400); // unclassified: counts as unexpected

    const first = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0 });
    expect(first.counts).toMatchObject({ released: 1, nothingToRelease: 1, error: 1 });
    expect(first.unexpectedErrors).toBe(1);
    const saved = JSON.parse(await readFile(checkpointFile, "utf8"));
    expect(saved.failed).toEqual({ [b.brandId]: "unexpected" });
    expect(saved.done).not.toContain(b.brandId);
    expect(saved.done).toContain(a.brandId);

    await world.sim.control("/faults", undefined, "DELETE");
    await world.sim.clearCalls();
    const resumed = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0 });
    expect(resumed.items).toEqual([]);
    expect(resumed.skipped).toEqual({ done: 2, failed: 1 });
    expect(await world.sim.calls()).toEqual([]);

    const retried = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0, retryFailed: true });
    expect(retried.items.map((item) => [item.brandId, item.outcome])).toEqual([[b.brandId, "released"]]);
    expect(await world.sim.totals(b.subWorkspaceId)).toEqual({ projects: 2, prompts: 100 });
    expect(JSON.parse(await readFile(checkpointFile, "utf8"))).toMatchObject({ failed: {} });
    expect((await ledgerOf(world, orgId)).length).toBe(2);
  });

  it("--limit counts after the checkpointed items", async () => {
    const { orgId, a, b, checkpointFile } = await setup();
    const first = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0, limit: 1 });
    expect(first.items.map((item) => item.brandId)).toEqual([a.brandId]);
    const second = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0, limit: 1 });
    expect(second.items.map((item) => item.brandId)).toEqual([b.brandId]);
  });

  it("--brand-ids narrows the run to those brands", async () => {
    const { orgId, b, checkpointFile } = await setup();
    const report = await sweep({ orgIds: [orgId], brandIds: [b.brandId], checkpointFile, rateLimitMs: 0 });
    expect(report.items.map((item) => item.brandId)).toEqual([b.brandId]);
  });

  it("an expected error (a 403 on one sub-workspace) resets the streak: the run does not abort", async () => {
    const { orgId, a, b, c, checkpointFile } = await setup();
    await failReads(a.subWorkspaceId, 403);

    const report = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0, maxConsecutiveErrors: 1 });

    expect(report.aborted).toBe(false);
    expect(report.unexpectedErrors).toBe(0);
    expect(report.items.map((item) => [item.brandId, item.outcome, item.errorCode])).toEqual([
      [a.brandId, "error", "forbidden"],
      [b.brandId, "released", undefined],
      [c.brandId, "nothingToRelease", undefined],
    ]);
    expect(report.items[0]!.expected).toBe(true);
  });

  it("unexpected errors in a row abort the run at --max-consecutive-errors", async () => {
    const { orgId, a, b, c, checkpointFile } = await setup();
    await failReads(a.subWorkspaceId, 400);
    await failReads(b.subWorkspaceId, 400);

    const report = await sweep({ orgIds: [orgId], checkpointFile, rateLimitMs: 0, maxConsecutiveErrors: 2 });

    expect(report.aborted).toBe(true);
    expect(report.unexpectedErrors).toBe(2);
    expect(report.notVisited).toBe(1);
    expect(report.items.map((item) => item.brandId)).not.toContain(c.brandId);
    expect(await world.sim.totals(c.subWorkspaceId)).toEqual({ projects: 1, prompts: 100 });
  });

  it("an unreadable checkpoint is an error unless fresh", async () => {
    const { orgId, checkpointFile } = await setup();
    await writeFile(checkpointFile, "{not json");
    await expect(sweep({ orgIds: [orgId], checkpointFile })).rejects.toBeInstanceOf(CheckpointError);
    expect(await mutatingCalls(world)).toEqual([]);

    const report = await sweep({ orgIds: [orgId], checkpointFile, fresh: true, rateLimitMs: 0 });
    expect(report.counts).toMatchObject({ released: 2, nothingToRelease: 1 });
    expect(JSON.parse(await readFile(checkpointFile, "utf8")).done).toHaveLength(3);
  });
});
