import { describe, expect, it } from "vitest";

import { ServiceError } from "../../../src/domain/errors.ts";
import { UNKNOWN_METERING } from "../../../src/domain/metering.ts";
import { marketWriteTarget, resolveWriteTarget } from "../../../src/markets/writeTarget.ts";

describe("resolveWriteTarget", () => {
  const org = { parentWorkspaceId: "parent", metering: { state: "unmetered" as const, asOf: new Date(0) } };
  const code = (run: () => unknown): [string, string] => {
    try {
      run();
    } catch (error) {
      if (error instanceof ServiceError) return [error.code, error.message];
      throw error;
    }
    return ["no error", ""];
  };

  it("a brand with a sub-workspace writes into it", () => {
    expect(resolveWriteTarget({ subWorkspaceId: "sub", provisioningStatus: "ready" }, org)).toEqual({
      workspaceId: "sub",
      flat: false,
      subWorkspaceId: "sub",
      parentWorkspaceId: "parent",
      // The org's metering goes with the target to the guard (spec/allocation.md §13).
      metering: "unmetered",
    });
  });

  it("a sub-workspace equal to the parent is misconfigured", () => {
    expect(
      code(() => resolveWriteTarget({ subWorkspaceId: "parent", provisioningStatus: "ready" }, org))[0],
    ).toBe("workspaceMisconfigured");
  });

  it("no sub-workspace and no provisioning history: flat, into the parent", () => {
    expect(resolveWriteTarget({ subWorkspaceId: null, provisioningStatus: null }, org)).toEqual({
      workspaceId: "parent",
      flat: true,
      subWorkspaceId: null,
      parentWorkspaceId: "parent",
      metering: "unmetered",
    });
  });

  it("flat but the org has no parent: 400 with the fixed sentence", () => {
    expect(
      code(() =>
        resolveWriteTarget(
          { subWorkspaceId: null, provisioningStatus: null },
          { parentWorkspaceId: null, metering: UNKNOWN_METERING },
        ),
      ),
    ).toEqual(["invalidRequest", "Organization has no Semrush workspace configured"]);
  });

  it.each(["pending", "failed", "ready"] as const)(
    "no sub-workspace but provisioning %s: incomplete",
    (status) => {
      expect(
        code(() => resolveWriteTarget({ subWorkspaceId: null, provisioningStatus: status }, org))[0],
      ).toBe("semrushProvisioningIncomplete");
    },
  );

  it("an existing market's target is where its project lives", () => {
    expect(marketWriteTarget("parent", org).flat).toBe(true);
    expect(marketWriteTarget("sub", org)).toMatchObject({
      flat: false,
      subWorkspaceId: "sub",
      metering: "unmetered",
    });
  });
});
