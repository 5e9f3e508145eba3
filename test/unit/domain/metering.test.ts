import { describe, expect, it } from "vitest";

import { allocates, flipOf, meteringOf, type MeteringState } from "../../../src/domain/metering.ts";

/** Each parent's own metering (spec/allocation.md §13): the pure rules. */
describe("metering", () => {
  it("is what the ai product's limits_enabled says, unknown when the answer does not say", () => {
    expect(meteringOf(true)).toBe("metered");
    expect(meteringOf(false)).toBe("unmetered");
    expect(meteringOf(null)).toBe("unknown");
  });

  it("allocates for every org but a known unmetered one (unknown is the safe side: metered)", () => {
    expect(allocates("metered")).toBe(true);
    expect(allocates("unknown")).toBe(true);
    expect(allocates("unmetered")).toBe(false);
  });

  it("flips only between the two known states", () => {
    const states: MeteringState[] = ["metered", "unmetered", "unknown"];
    const flips = states.flatMap((from) => states.map((to) => [from, to, flipOf(from, to)] as const));
    expect(flips.filter(([, , flip]) => flip !== undefined)).toEqual([
      ["metered", "unmetered", { from: "metered", to: "unmetered" }],
      ["unmetered", "metered", { from: "unmetered", to: "metered" }],
    ]);
  });
});
