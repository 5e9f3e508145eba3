import { describe, expect, it } from "vitest";

import type { BrandRow } from "../../../src/db/brands/brandRow.ts";
import type { ResourceObservation } from "../../../src/db/resourceObservations/observationRow.ts";
import { type OrgMetering, UNKNOWN_METERING } from "../../../src/domain/metering.ts";
import { composePoolView } from "../../../src/poolView/poolView.ts";

/** The pool view composed from the resources record (spec/allocation.md §8, §12). */

const at = (seconds: number) => new Date(Date.parse("2026-06-01T08:00:00.000Z") + seconds * 1000);

function brand(id: string, subWorkspaceId: string | null, status: BrandRow["status"] = "active"): BrandRow {
  return { id, name: `Brand ${id}`, subWorkspaceId, status } as BrandRow;
}

function entry(
  workspaceId: string,
  prompts: [number, number, number],
  observedAt: Date,
  title?: string,
  metering: OrgMetering = UNKNOWN_METERING,
) {
  const [used, drafted, total] = prompts;
  return {
    orgId: "org",
    workspaceId,
    resources: { projects: { used: 1, drafted: 0, total: 2 }, prompts: { used, drafted, total } },
    title: title ?? null,
    observedAt,
    metering,
  } satisfies ResourceObservation;
}

describe("composePoolView", () => {
  const view = composePoolView({
    org: { parentWorkspaceId: "parent" },
    brands: [brand("a", "sub-a"), brand("b", "sub-b"), brand("c", null), brand("d", "sub-d", "deleted")],
    observations: [
      entry("parent", [0, 0, 500], at(0)),
      entry("sub-a", [40, 20, 300], at(-10)),
      entry("sub-d", [0, 0, 1], at(-5), "Brand d"),
      entry("other", [0, 0, 100], at(-3), "Another team"),
    ],
    failures: new Map([["sub-b", "forbidden" as const]]),
    dynamicAllocation: true,
    now: at(1),
  });

  it("shows each brand with its entry's numbers and asOf, and a failed read as an error without numbers", () => {
    expect(view.brands).toEqual([
      {
        brandId: "a",
        name: "Brand a",
        subWorkspaceId: "sub-a",
        projects: { used: 1, drafted: 0, total: 2, free: 1 },
        prompts: { used: 40, drafted: 20, total: 300, free: 240 },
        stranded: { projects: 1, prompts: 200 },
        asOf: at(-10),
      },
      {
        brandId: "b",
        name: "Brand b",
        subWorkspaceId: "sub-b",
        projects: null,
        prompts: null,
        stranded: null,
        asOf: null,
        error: "forbidden",
      },
    ]);
  });

  it("shows the pool with the parent's asOf, and every other entry as unattached with its title", () => {
    expect(view.pool).toEqual({
      projects: { used: 1, drafted: 0, total: 2, free: 1 },
      prompts: { used: 0, drafted: 0, total: 500, free: 500 },
      asOf: at(0),
    });
    expect(view.unattached.map((u) => [u.subWorkspaceId, u.title, u.brandId, u.asOf])).toEqual([
      ["other", "Another team", null, at(-3)],
      ["sub-d", "Brand d", "d", at(-5)],
    ]);
    expect(view.sampledAt).toEqual(at(1));
  });

  it("a brand with neither an entry nor a failure reads unavailable; no parent entry, no pool", () => {
    const bare = composePoolView({
      org: { parentWorkspaceId: null },
      brands: [brand("a", "sub-a")],
      observations: [],
      failures: new Map(),
      dynamicAllocation: false,
      now: at(0),
    });
    expect(bare.pool).toBeNull();
    expect(bare.brands[0]).toMatchObject({ error: "unavailable", asOf: null, projects: null });
    expect(bare).toMatchObject({ metering: { state: "unknown", asOf: null }, allocation: "off" });
  });

  it("shows an entry that holds no read as no entry: a failed fill reads as its error, an unattached one is not listed", () => {
    const notRead = new Date(0); // NOT_READ_OBSERVED_AT: a publish or announcement before any read
    const shown = composePoolView({
      org: { parentWorkspaceId: "parent" },
      brands: [brand("a", "sub-a"), brand("b", "sub-b")],
      observations: [
        entry("parent", [0, 0, 0], notRead, undefined, { state: "metered", asOf: at(-30) }),
        entry("sub-a", [0, 0, 0], notRead),
        entry("sub-b", [0, 0, 0], notRead),
        entry("gone", [0, 0, 0], notRead),
      ],
      failures: new Map([["sub-a", "forbidden" as const]]),
      dynamicAllocation: true,
      now: at(1),
    });
    expect(shown.pool).toBeNull();
    expect(shown.metering).toEqual({ state: "metered", asOf: at(-30) });
    expect(shown.brands.map((b) => [b.subWorkspaceId, b.error, b.asOf, b.prompts])).toEqual([
      ["sub-a", "forbidden", null, null],
      ["sub-b", "unavailable", null, null],
    ]);
    expect(shown.unattached).toEqual([]);
  });

  it("shows the parent's metering and what allocation does for the org (spec/allocation.md §13)", () => {
    const compose = (metering: OrgMetering, dynamicAllocation: boolean) =>
      composePoolView({
        org: { parentWorkspaceId: "parent" },
        brands: [brand("a", "sub-a")],
        // A sub-workspace's own metering columns are never the org's: only the parent's entry counts.
        observations: [
          entry("parent", [0, 0, 0], at(0), undefined, metering),
          entry("sub-a", [0, 0, 100], at(0), undefined, { state: "metered", asOf: at(0) }),
        ],
        failures: new Map(),
        dynamicAllocation,
        now: at(1),
      });
    const unmetered = { state: "unmetered", asOf: at(-30) } as const;
    expect(compose(unmetered, true)).toMatchObject({ metering: unmetered, allocation: "notNeeded" });
    expect(compose(unmetered, false).allocation).toBe("notNeeded");
    expect(compose({ state: "metered", asOf: at(-30) }, true).allocation).toBe("justInTime");
    expect(compose(UNKNOWN_METERING, true)).toMatchObject({
      metering: UNKNOWN_METERING,
      allocation: "justInTime",
    });
    expect(compose({ state: "metered", asOf: at(-30) }, false).allocation).toBe("off");
  });
});
