import { describe, expect, it } from "vitest";

import {
  dimensionsOverCeiling,
  exactTargets,
  headroom,
  isEmptyTargets,
  planRelease,
  planTopUp,
  roundUpToBlock,
  sameTargets,
  strandedUnits,
  takenFromPool,
  totalsAfter,
  type WorkspaceResources,
} from "../../../src/domain/allocation.ts";

function resources(
  projects: [used: number, drafted: number, total: number],
  prompts: [used: number, drafted: number, total: number],
): WorkspaceResources {
  return {
    projects: { used: projects[0], drafted: projects[1], total: projects[2] },
    prompts: { used: prompts[0], drafted: prompts[1], total: prompts[2] },
  };
}

const empty = resources([0, 0, 0], [0, 0, 0]);

describe("roundUpToBlock", () => {
  it("rounds the whole requirement up to the block", () => {
    expect(roundUpToBlock(1, 100)).toBe(100);
    expect(roundUpToBlock(100, 100)).toBe(100);
    expect(roundUpToBlock(101, 100)).toBe(200);
    expect(roundUpToBlock(7, 1)).toBe(7);
  });

  it("keeps zero at zero and rejects a non-positive block", () => {
    expect(roundUpToBlock(0, 100)).toBe(0);
    expect(() => roundUpToBlock(5, 0)).toThrow(RangeError);
  });
});

describe("planTopUp", () => {
  it("a need of 1 prompt on an empty sub-workspace targets 100", () => {
    expect(planTopUp(empty, { prompts: 1 })).toEqual({
      required: { projects: 0, prompts: 1 },
      targets: { prompts: 100 },
    });
  });

  it("a need of 101 prompts targets 200 (the whole requirement is rounded, not the delta)", () => {
    expect(planTopUp(empty, { prompts: 101 }).targets).toEqual({ prompts: 200 });
    // 150 staged + 51 needed = 201 → 300, although the delta over the current 200 is only 1.
    expect(planTopUp(resources([0, 0, 0], [100, 50, 200]), { prompts: 51 }).targets).toEqual({
      prompts: 300,
    });
  });

  it("counts used, drafted, need and in-flight units", () => {
    const plan = planTopUp(
      resources([2, 1, 4], [300, 50, 400]),
      { projects: 1, prompts: 40 },
      { prompts: 20 },
    );
    expect(plan.required).toEqual({ projects: 4, prompts: 410 });
    expect(plan.targets).toEqual({ prompts: 500 });
  });

  it("carries every short dimension and omits the others", () => {
    expect(planTopUp(resources([3, 0, 3], [0, 0, 100]), { projects: 1, prompts: 100 }).targets).toEqual({
      projects: 4,
    });
    expect(planTopUp(resources([3, 0, 3], [0, 50, 100]), { projects: 1, prompts: 100 }).targets).toEqual({
      projects: 4,
      prompts: 200,
    });
  });

  it("is the hot path when headroom covers the need", () => {
    const plan = planTopUp(resources([1, 0, 2], [0, 0, 100]), { projects: 1, prompts: 100 });
    expect(plan.targets).toEqual({});
    expect(isEmptyTargets(plan.targets)).toBe(true);
  });

  it("an empty need tops up a sub-workspace that is over-committed (publish re-check)", () => {
    expect(planTopUp(resources([2, 1, 2], [0, 0, 0]), {}).targets).toEqual({ projects: 3 });
    expect(planTopUp(resources([0, 0, 0], [0, 0, 0]), {}).targets).toEqual({});
  });

  it("never targets 0 and rejects negative or fractional needs", () => {
    expect(Object.values(planTopUp(empty, { projects: 0, prompts: 0 }).targets)).toEqual([]);
    expect(() => planTopUp(empty, { prompts: -1 })).toThrow(RangeError);
    expect(() => planTopUp(empty, { prompts: 1.5 })).toThrow(RangeError);
  });
});

describe("dimensionsOverCeiling", () => {
  it("names the targets above a defined ceiling only", () => {
    expect(dimensionsOverCeiling({ projects: 4, prompts: 300 }, { projects: 3, prompts: undefined })).toEqual(
      ["projects"],
    );
    expect(dimensionsOverCeiling({ prompts: 300 }, { prompts: 300 })).toEqual([]);
    expect(dimensionsOverCeiling({ prompts: 400 }, { projects: 1 })).toEqual([]);
  });
});

describe("planRelease", () => {
  it("{5, 800} with no usage releases to the floor {1, 100}", () => {
    expect(planRelease(resources([0, 0, 5], [0, 0, 800]), { projects: 1, prompts: 100 })).toEqual({
      keep: { projects: 1, prompts: 100 },
      targets: { projects: 1, prompts: 100 },
      requiresDecommission: [],
    });
  });

  it("keeps used + drafted rounded to blocks (drafted counts)", () => {
    const plan = planRelease(resources([1, 2, 5], [120, 90, 800]), { projects: 1, prompts: 100 });
    expect(plan.keep).toEqual({ projects: 3, prompts: 300 });
    expect(plan.targets).toEqual({ projects: 3, prompts: 300 });
  });

  it("lowers only dimensions whose target is below total", () => {
    expect(planRelease(resources([2, 0, 2], [0, 0, 500]), { projects: 1, prompts: 100 }).targets).toEqual({
      prompts: 100,
    });
    expect(planRelease(resources([0, 0, 1], [0, 0, 50]), { projects: 1, prompts: 100 }).targets).toEqual({});
  });

  it("a dimension that would reach 0 is left and reported", () => {
    expect(planRelease(resources([0, 0, 3], [0, 0, 300]), { projects: 0, prompts: 100 })).toEqual({
      keep: { projects: 0, prompts: 100 },
      targets: { prompts: 100 },
      requiresDecommission: ["projects"],
    });
  });

  it("the deactivation floor {1, 1} keeps one prompt unit", () => {
    expect(planRelease(resources([0, 0, 2], [0, 0, 300]), { projects: 1, prompts: 1 }).targets).toEqual({
      projects: 1,
      prompts: 1,
    });
  });
});

describe("strandedUnits, headroom and totalsAfter", () => {
  it("stranded = total − roundUpToBlock(used + drafted), never negative", () => {
    expect(strandedUnits(resources([1, 1, 5], [150, 0, 800]))).toEqual({ projects: 3, prompts: 600 });
    expect(strandedUnits(resources([3, 0, 2], [0, 0, 0]))).toEqual({ projects: 0, prompts: 0 });
  });

  it("headroom and the totals after a partial transfer", () => {
    expect(headroom({ used: 10, drafted: 5, total: 100 })).toBe(85);
    const before = resources([1, 0, 2], [0, 0, 100]);
    expect(totalsAfter(before, { prompts: 300 })).toEqual({ projects: 2, prompts: 300 });
  });
});

describe("exact top-ups (§11 step 1)", () => {
  it("targets the requirement itself, only in the short dimensions", () => {
    const plan = planTopUp(resources([1, 0, 1], [90, 0, 100]), { projects: 0, prompts: 25 });
    expect(plan.targets).toEqual({ prompts: 200 });
    expect(exactTargets(plan)).toEqual({ prompts: 115 });
    expect(takenFromPool(resources([1, 0, 1], [90, 0, 100]), exactTargets(plan))).toEqual({
      projects: 0,
      prompts: 15,
    });
  });

  it("is the block target when the requirement is already a whole block (no second transfer)", () => {
    const plan = planTopUp(resources([0, 0, 0], [0, 0, 50]), { projects: 1, prompts: 200 });
    expect(exactTargets(plan)).toEqual({ projects: 1, prompts: 200 });
    expect(sameTargets(exactTargets(plan), plan.targets)).toBe(true);
  });

  it("counts drafted and in-flight units, so the write still fits", () => {
    const plan = planTopUp(resources([0, 0, 0], [40, 30, 70]), { prompts: 5 }, { prompts: 3 });
    expect(exactTargets(plan)).toEqual({ prompts: 78 });
  });
});
