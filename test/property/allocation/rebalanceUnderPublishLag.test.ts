import { randomUUID } from "node:crypto";

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAllocationGuard } from "../../../src/allocation/allocationGuard.ts";
import { withPublishRecording } from "../../../src/allocation/publishRecorder.ts";
import { DIMENSIONS, type TransferTargets, type Units } from "../../../src/domain/allocation.ts";
import type { Clock } from "../../../src/domain/clock.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import {
  type AllocationWorld,
  forgetPoolFreeBounds,
  PARENT,
  startAllocationWorld,
  TOKEN,
} from "../../support/allocationWorld.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ensureUnderLock } from "../../support/ensureUnderLock.ts";

/**
 * Rebalancing and releases inside the publish-lag window (docs/decisions/0030), against the
 * simulator over real HTTP with its `used` lagging every publish by a random number of reads or
 * milliseconds (of one clock shared with Serenity), the real gateway client with the publish
 * recorder, the database lock with its section scope, and a tight pool (gold, 13 / 800) so
 * top-ups need exact transfers and rebalancing all the time. Random interleavings, across three
 * sibling sub-workspaces, of guarded writes (a project, prompts, a publish in one section),
 * publishes of staged prompts, project deletes followed by the best-effort release, explicit
 * ensures (the top-up path that rebalances) and time passing. Holds:
 *  - after every transfer, the workspace it moved has `total ≥ used + drafted` in the simulator's
 *    truth (not the lagging read): nothing is ever lowered below what it uses;
 *  - no metered write Serenity admitted is rejected for quota (the only refusal is the pool's,
 *    `orgPoolExhausted`, before any write);
 *  - the pool (`parent.total + Σ child totals`) never changes.
 */

type Op =
  | { kind: "write"; ws: number; texts: number; publish: boolean }
  | { kind: "stage"; ws: number; texts: number }
  | { kind: "publish"; ws: number }
  | { kind: "delete"; ws: number }
  | { kind: "ensure"; ws: number; prompts: number }
  | { kind: "wait"; ms: number };

const SUBS = 3;
const wsArb = fc.integer({ min: 0, max: SUBS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      ws: wsArb,
      texts: fc.integer({ min: 1, max: 90 }),
      publish: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("stage" as const),
      ws: wsArb,
      texts: fc.integer({ min: 1, max: 60 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("publish" as const), ws: wsArb }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), ws: wsArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("ensure" as const),
      ws: wsArb,
      prompts: fc.integer({ min: 1, max: 250 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 100, max: 40_000 }) }),
  },
);
/**
 * How long `used` may read low after a publish: Serenity's configured bound
 * (SERENITY_PUBLISH_LAG_MS, default 30 s). The simulator's lag never outlasts it: a read budget
 * alone would, once a `wait` passes between reads, and a lag longer than the bound Serenity is told
 * is a misconfiguration, not a case it can plan for (docs/configuration.md; ADR 0030 addendum).
 */
const LAG_BOUND_MS = 30_000;
/** How `used` lags a publish in this run: reads, milliseconds, or both, all ending inside the bound. */
const lagArb = fc.record({
  usedLagReads: fc.integer({ min: 0, max: 6 }),
  usedLagMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 29_000 })),
  usedLagMaxMs: fc.constant(LAG_BOUND_MS - 1),
});

/** One clock for Serenity and the simulator: it moves by the `wait` ops and by every sleep on it. */
class SharedClock implements Clock {
  ms = Date.UTC(2026, 0, 5, 9);
  now(): Date {
    return new Date(this.ms);
  }
  /** Publish windows are decided on the database's clock: here, on this one (docs/decisions/0023). */
  databaseTime(): Date {
    return new Date(this.ms);
  }
  sleep(ms: number): Promise<void> {
    this.ms += Math.max(0, ms);
    return new Promise((resolve) => setImmediate(resolve));
  }
}

let db: TestDatabase;
let h: AllocationWorld;
const clock = new SharedClock();
beforeAll(async () => {
  db = await createTestDatabase();
  h = await startAllocationWorld(db, { clock, simulatorNow: () => clock.ms });
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

async function truth(): Promise<
  Map<string, Record<"projects" | "prompts", { used: number; drafted: number; total: number }>>
> {
  const dump = await h.sim.dump();
  return new Map(
    dump.workspaces
      .filter((workspace) => workspace.id === PARENT || workspace.parent_id === PARENT)
      .map((workspace) => [workspace.id, workspace.resources]),
  );
}

function poolOf(state: Awaited<ReturnType<typeof truth>>): Units {
  const sum = { projects: 0, prompts: 0 };
  for (const resources of state.values())
    for (const dimension of DIMENSIONS) sum[dimension] += resources[dimension].total;
  return sum;
}

describe("rebalancing and releases under a lagging used", () => {
  it("never lower a sub-workspace below its real used + drafted, never fail an admitted write for quota, conserve the pool", async () => {
    let run = 0;
    // The property must reach the path it is about: a sub-workspace lowered inside its window.
    let loweredInWindow = 0;
    await fc.assert(
      fc.asyncProperty(lagArb, fc.array(opArb, { minLength: 4, maxLength: 16 }), async (lag, ops) => {
        run++;
        h.sim.simulator.reset();
        h.sim.simulator.updateSettings(lag);
        // A new simulator is a pool changed outside Serenity: what was known of the old one goes.
        await forgetPoolFreeBounds(db.db, h.orgId);
        const breaches: string[] = [];
        const publishedAt = new Map<string, number>();
        const upstream = {
          ...h.deps.upstream,
          transfer: async (bearer: string, ws: string, targets: TransferTargets) => {
            const before = (await truth()).get(ws);
            const lowering = DIMENSIONS.some(
              (dimension) => before && (targets[dimension] ?? Infinity) < before[dimension].total,
            );
            if (lowering && clock.ms - (publishedAt.get(ws) ?? -Infinity) < 30_000) loweredInWindow++;
            const answer = await h.deps.upstream.transfer(bearer, ws, targets);
            const after = (await truth()).get(ws);
            for (const dimension of DIMENSIONS) {
              const counts = after?.[dimension];
              if (counts && counts.total < counts.used + counts.drafted) {
                breaches.push(
                  `${ws}.${dimension}: total ${counts.total} < ${counts.used} + ${counts.drafted}`,
                );
              }
            }
            return answer;
          },
        };
        const subs: string[] = [];
        for (let i = 0; i < SUBS; i++) subs.push(await h.newSubWorkspace({ projects: 1, prompts: 100 }));
        const siblings = subs.map((id) => ({ brandId: randomUUID(), subWorkspaceId: id }));
        const deps = { ...h.deps, upstream, siblings: async () => siblings };
        const gateway = withPublishRecording(h.client, {
          db: db.db,
          clock,
          logger: h.deps.logger,
          env: h.env,
        });
        const projects: string[][] = subs.map(() => []);
        const pool = poolOf(await truth());
        const context = (ws: number) => ({
          orgId: h.orgId,
          brandId: siblings[ws]!.brandId,
          subWorkspaceId: subs[ws]!,
          parentWorkspaceId: PARENT,
          requestId: `lag-${run}`,
          bearer: TOKEN,
          flat: false,
          metering: "metered" as const,
        });
        const guard = (ws: number) => createAllocationGuard(deps, context(ws));
        let counter = 0;
        const texts = (n: number) => Array.from({ length: n }, () => `text ${++counter}`);
        const newProject = async (ws: string) => {
          const id = await h.createProject(ws);
          await gateway.projects.patchProject(TOKEN, ws, id, { primaryUrl: "https://brand.example/" });
          return id;
        };
        const failures: string[] = [];
        // Every run opens on the path it is about, a sub-workspace lowered inside its publish
        // window: ws0 takes most of the parent's free prompts, ws2 drafts most of its own, ws0
        // publishes while the simulator's `used` lags (three reads), and ws1's top-up then needs
        // more than the parent has left. The generated lag and operations follow.
        h.sim.simulator.updateSettings({ usedLagReads: 3, usedLagMs: 0, usedLagMaxMs: LAG_BOUND_MS - 1 });
        const opening: Op[] = [
          { kind: "ensure", ws: 0, prompts: 550 },
          { kind: "write", ws: 2, texts: 90, publish: false },
          { kind: "write", ws: 0, texts: 20, publish: true },
          { kind: "ensure", ws: 1, prompts: 300 },
        ];
        const loweredBefore = loweredInWindow;
        for (const [index, op] of [...opening, ...ops].entries()) {
          if (index === opening.length) {
            expect(loweredInWindow, "the opening lowered a sub-workspace inside its window").toBeGreaterThan(
              loweredBefore,
            );
            h.sim.simulator.updateSettings(lag);
          }
          try {
            switch (op.kind) {
              case "write":
              case "stage": {
                const ws = subs[op.ws]!;
                const list = projects[op.ws]!;
                const fresh = list.length === 0 || op.kind === "write";
                await guard(op.ws).section({ projects: fresh ? 1 : 0, prompts: op.texts }, async (write) => {
                  const projectId = fresh
                    ? await write("projectCreate", () => newProject(ws), { projects: 1 })
                    : list[0]!;
                  if (fresh) list.push(projectId);
                  await write(
                    "promptCreate",
                    () =>
                      gateway.projects.createPrompts(TOKEN, ws, projectId, {
                        texts: texts(op.texts),
                        createdBy: "property",
                      }),
                    { prompts: op.texts },
                  );
                  if (op.kind === "write" && op.publish) {
                    await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
                    publishedAt.set(ws, clock.ms);
                  }
                });
                break;
              }
              case "publish": {
                const ws = subs[op.ws]!;
                const projectId = projects[op.ws]!.at(-1);
                if (!projectId) break;
                await guard(op.ws).section({}, (write) =>
                  write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId)),
                );
                publishedAt.set(ws, clock.ms);
                break;
              }
              case "delete": {
                const ws = subs[op.ws]!;
                const projectId = projects[op.ws]!.shift();
                if (!projectId) break;
                await gateway.projects.deleteProject(TOKEN, ws, projectId);
                await guard(op.ws).releaseSurplus({ projects: 1, prompts: 100 }, "release");
                break;
              }
              case "ensure":
                await ensureUnderLock(
                  deps,
                  { ...context(op.ws), subWorkspaceId: subs[op.ws]! },
                  { prompts: op.prompts },
                );
                break;
              case "wait":
                clock.ms += op.ms;
                break;
            }
          } catch (error) {
            const code = error instanceof ServiceError ? error.code : String(error);
            if (code !== "orgPoolExhausted") failures.push(`${op.kind}: ${code}`);
          }
          const state = await truth();
          expect(poolOf(state)).toEqual(pool);
        }
        expect(breaches).toEqual([]);
        expect(failures).toEqual([]);
      }),
      // The seed varies per run; fast-check prints it with the path when a run fails: replay with
      // `{ seed, path }` here. The rare path is reached by the opening, not by a seed.
      { numRuns: 12 },
    );
    expect(loweredInWindow).toBeGreaterThan(0);
  }, 300_000);
});
