import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { DIMENSIONS, type Units, type WorkspaceResources } from "../../../src/domain/allocation.ts";
import { planRebalance, REBALANCE_FLOOR, siblingSlack } from "../../../src/domain/rebalancePlan.ts";

function resources(
  projects: [used: number, drafted: number, total: number],
  prompts: [used: number, drafted: number, total: number],
): WorkspaceResources {
  return {
    projects: { used: projects[0], drafted: projects[1], total: projects[2] },
    prompts: { used: prompts[0], drafted: prompts[1], total: prompts[2] },
  };
}

describe("siblingSlack", () => {
  it("is total − max(floor, used + drafted + inFlight), never negative", () => {
    expect(siblingSlack(resources([1, 0, 3], [120, 30, 200]))).toEqual({ projects: 2, prompts: 50 });
    expect(siblingSlack(resources([1, 0, 3], [120, 30, 200]), REBALANCE_FLOOR, { prompts: 20 })).toEqual({
      projects: 2,
      prompts: 30,
    });
    // Over-committed (a total below usage) gives nothing; the floor keeps one unit of an idle one.
    expect(siblingSlack(resources([2, 0, 1], [0, 0, 100]))).toEqual({ projects: 0, prompts: 99 });
    expect(siblingSlack(resources([0, 0, 5], [0, 0, 800]), { projects: 1, prompts: 100 })).toEqual({
      projects: 4,
      prompts: 700,
    });
  });
});

describe("planRebalance", () => {
  const siblings = [
    { id: "b", resources: resources([1, 0, 1], [180, 0, 200]) }, // 20 prompts of slack
    { id: "c", resources: resources([1, 0, 1], [150, 50, 300]) }, // 100
    { id: "d", resources: resources([1, 0, 1], [100, 0, 100]) }, // none
  ];

  it("takes from the largest slack first, and only what is needed", () => {
    expect(planRebalance(siblings, { projects: 0, prompts: 50 })).toEqual({
      lowered: [{ id: "c", targets: { prompts: 250 }, reclaimed: { projects: 0, prompts: 50 } }],
      reclaimed: { projects: 0, prompts: 50 },
    });
  });

  it("moves on to the next sibling when the first is spent, the last one giving part of its slack", () => {
    expect(planRebalance(siblings, { projects: 0, prompts: 110 })).toEqual({
      lowered: [
        { id: "c", targets: { prompts: 200 }, reclaimed: { projects: 0, prompts: 100 } },
        { id: "b", targets: { prompts: 190 }, reclaimed: { projects: 0, prompts: 10 } },
      ],
      reclaimed: { projects: 0, prompts: 110 },
    });
  });

  it("reclaims all there is when the slack falls short, and nothing from a sibling without slack", () => {
    const plan = planRebalance(siblings, { projects: 0, prompts: 500 });
    expect(plan.reclaimed).toEqual({ projects: 0, prompts: 120 });
    expect(plan.lowered.map((sibling) => sibling.id)).toEqual(["c", "b"]);
  });

  it("one transfer per sibling carries every dimension it gives", () => {
    const plan = planRebalance([{ id: "x", resources: resources([1, 0, 3], [10, 0, 100]) }], {
      projects: 1,
      prompts: 30,
    });
    expect(plan.lowered).toEqual([
      { id: "x", targets: { projects: 2, prompts: 70 }, reclaimed: { projects: 1, prompts: 30 } },
    ]);
  });

  it("nothing to reclaim: no sibling is lowered", () => {
    expect(planRebalance(siblings, { projects: 1, prompts: 0 })).toEqual({
      lowered: [],
      reclaimed: { projects: 0, prompts: 0 },
    });
  });

  const usage = fc.record({
    used: fc.integer({ min: 0, max: 500 }),
    drafted: fc.integer({ min: 0, max: 200 }),
    total: fc.integer({ min: 0, max: 1_000 }),
  });
  const candidates = fc.uniqueArray(
    fc.record({
      id: fc.string({ minLength: 1, maxLength: 4 }),
      resources: fc.record({ projects: usage, prompts: usage }),
    }),
    { selector: (candidate) => candidate.id, maxLength: 8 },
  );
  const shortfall = fc.record({
    projects: fc.integer({ min: 0, max: 50 }),
    prompts: fc.integer({ min: 0, max: 2_000 }),
  });

  it("property: never below max(floor, used + drafted), never 0, never more than needed, all the slack when short", () => {
    fc.assert(
      fc.property(candidates, shortfall, (list, need) => {
        const plan = planRebalance(list, need);
        const totalSlack: Units = { projects: 0, prompts: 0 };
        for (const candidate of list) {
          const slack = siblingSlack(candidate.resources);
          for (const dimension of DIMENSIONS) totalSlack[dimension] += slack[dimension];
        }
        const sum: Units = { projects: 0, prompts: 0 };
        for (const lowered of plan.lowered) {
          const { resources: read } = list.find((candidate) => candidate.id === lowered.id)!;
          for (const dimension of DIMENSIONS) {
            const target = lowered.targets[dimension];
            if (target === undefined) continue;
            const { used, drafted, total } = read[dimension];
            expect(target).toBeGreaterThanOrEqual(Math.max(REBALANCE_FLOOR[dimension], used + drafted));
            expect(target).toBeGreaterThan(0);
            expect(target).toBeLessThan(total);
            expect(total - target).toBe(lowered.reclaimed[dimension]);
            sum[dimension] += total - target;
          }
        }
        for (const dimension of DIMENSIONS) {
          expect(sum[dimension]).toBe(plan.reclaimed[dimension]);
          expect(plan.reclaimed[dimension]).toBe(Math.min(need[dimension], totalSlack[dimension]));
        }
        expect(new Set(plan.lowered.map((lowered) => lowered.id)).size).toBe(plan.lowered.length);
      }),
      { numRuns: 300 },
    );
  });
});
