import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAllocationGuard } from "../../../src/allocation/allocationGuard.ts";
import { AllocationService } from "../../../src/allocation/allocationService.ts";
import { DIMENSIONS, type Need, type TransferTargets, type Units } from "../../../src/domain/allocation.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { OrgService } from "../../../src/orgs/orgService.ts";
import { releaseAndEnsureOps } from "../../support/allocationWorkload.ts";
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
 * The conservation property against the simulator over real HTTP, with the real gateway client and
 * the database lock: random rounds of concurrent guarded project and prompt creates, project
 * deletes followed by a best-effort release, explicit releases and ensures on three sub-workspaces.
 * After every round the pool (`parent.total + Σ child totals`) is unchanged; no transfer ever sends a
 * 0; after quiescence no sub-workspace has `total < used + drafted`; with a large pool nothing fails.
 */

type Op =
  | { kind: "createProject"; ws: number }
  | { kind: "createPrompts"; ws: number; texts: number }
  | { kind: "deleteProject"; ws: number }
  | { kind: "release"; ws: number; floor: Units }
  | { kind: "ensure"; ws: number; need: Need };

const SUBS = 3;
const wsArb = fc.integer({ min: 0, max: SUBS - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("createProject" as const), ws: wsArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("createPrompts" as const),
      ws: wsArb,
      texts: fc.integer({ min: 1, max: 120 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deleteProject" as const), ws: wsArb }) },
  ...releaseAndEnsureOps(wsArb),
);
const workloadArb = fc.array(fc.array(opArb, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 });

let db: TestDatabase;
let h: AllocationWorld;
beforeAll(async () => {
  db = await createTestDatabase();
  h = await startAllocationWorld(db);
});
afterAll(async () => {
  await h.close();
  await db.destroy();
});

async function poolSum(): Promise<{ sum: Units; breaches: string[] }> {
  const dump = await h.sim.dump();
  const sum = { projects: 0, prompts: 0 };
  const breaches: string[] = [];
  for (const workspace of dump.workspaces) {
    if (workspace.id !== PARENT && workspace.parent_id !== PARENT) continue;
    for (const dimension of DIMENSIONS) {
      const { used, drafted, total } = workspace.resources[dimension];
      sum[dimension] += total;
      if (workspace.id !== PARENT && total < used + drafted) {
        breaches.push(`${workspace.id}.${dimension}: total ${total} < ${used + drafted}`);
      }
    }
  }
  return { sum, breaches };
}

describe("allocation conservation against the simulator", () => {
  it("large pool: conserved after every round, never a 0, never over-committed, nothing fails", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(workloadArb, async (rounds) => {
        run++;
        h.sim.simulator.reset();
        // A new simulator is a pool changed outside Serenity: what was known of the old one goes.
        await forgetPoolFreeBounds(db.db, h.orgId);
        await h.sim.control("/quota", { workspaceId: PARENT, projects: 1_000, prompts: 100_000 });
        const sent: TransferTargets[] = [];
        const upstream = {
          ...h.deps.upstream,
          transfer: (bearer: string, ws: string, targets: TransferTargets) => {
            sent.push(targets);
            return h.deps.upstream.transfer(bearer, ws, targets);
          },
        };
        const deps = { ...h.deps, upstream };
        const subs: string[] = [];
        for (let i = 0; i < SUBS; i++) subs.push(await h.newSubWorkspace());
        const projects: string[][] = subs.map(() => []);
        const initial = (await poolSum()).sum;
        const brandId = "00000000-0000-4000-8000-000000000003";
        const guard = (ws: number) =>
          createAllocationGuard(deps, {
            orgId: "00000000-0000-4000-8000-000000000002",
            brandId,
            subWorkspaceId: subs[ws]!,
            parentWorkspaceId: PARENT,
            requestId: `run-${run}`,
            bearer: TOKEN,
            flat: false,
            metering: "metered",
          });
        // The ops a guard has no method for: an explicit release with its report (the request
        // path's transfers, as the guard's), and the top-up rules on their own.
        const allocation = new AllocationService({
          ...deps,
          orgs: new OrgService({ db: db.db, clock: deps.clock }),
        });
        const target = (ws: number) => ({
          orgId: "00000000-0000-4000-8000-000000000002",
          brandId,
          subWorkspaceId: subs[ws]!,
          requestId: `run-${run}`,
          bearer: TOKEN,
        });
        let textCounter = 0;
        const runOp = async (op: Op): Promise<unknown> => {
          const ws = subs[op.ws]!;
          switch (op.kind) {
            case "createProject": {
              const id = await guard(op.ws).singleWrite("projectCreate", { projects: 1 }, () =>
                h.createProject(ws),
              );
              projects[op.ws]!.push(id);
              return id;
            }
            case "createPrompts": {
              const projectId = projects[op.ws]![0];
              if (!projectId) return undefined;
              const texts = Array.from({ length: op.texts }, () => `text ${++textCounter}`);
              // Every project has one model here, so the need is texts × 1.
              return guard(op.ws).singleWrite("promptCreate", { prompts: texts.length }, () =>
                h.client.projects.createPrompts(TOKEN, ws, projectId, { texts, createdBy: "property" }),
              );
            }
            case "deleteProject": {
              // The first project stays: concurrent prompt creates of this round write into it.
              if (projects[op.ws]!.length < 2) return undefined;
              const projectId = projects[op.ws]!.pop()!;
              await h.client.projects.deleteProject(TOKEN, ws, projectId);
              return guard(op.ws).releaseSurplus({ projects: 1, prompts: 100 }, "release");
            }
            case "release": {
              const report = await allocation.releaseSurplus(target(op.ws), {
                floor: op.floor,
                path: "failFast",
              });
              if (report.outcome === "error") throw new Error(`release error ${report.errorCode}`);
              return report;
            }
            case "ensure":
              return ensureUnderLock(deps, target(op.ws), op.need);
          }
        };
        const failures: string[] = [];
        for (const round of rounds) {
          const settled = await Promise.allSettled(round.map(runOp));
          for (const outcome of settled) {
            if (outcome.status === "rejected") {
              const error = outcome.reason as unknown;
              failures.push(error instanceof ServiceError ? error.code : String(error));
            }
          }
          expect((await poolSum()).sum).toEqual(initial);
        }
        expect(failures).toEqual([]);
        expect(sent.filter((targets) => Object.values(targets).includes(0))).toEqual([]);
        expect((await poolSum()).breaches).toEqual([]);
      }),
      { numRuns: 12 },
    );
  });
});
