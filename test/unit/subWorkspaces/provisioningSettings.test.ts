import { describe, expect, it } from "vitest";

import {
  provisioningStaleMs,
  provisionSettleBudgetMs,
} from "../../../src/subWorkspaces/provisioningSettings.ts";

describe("the stale threshold setting", () => {
  it("defaults to ten minutes and reads a positive integer per use; a malformed value throws naming it", () => {
    expect(provisioningStaleMs({})).toBe(600_000);
    expect(provisioningStaleMs({ SERENITY_PROVISIONING_STALE_MS: "1500" })).toBe(1500);
    // Checked at boot as well (src/config/env.ts), so a running process never meets one.
    expect(() => provisioningStaleMs({ SERENITY_PROVISIONING_STALE_MS: "-3" })).toThrow(
      /SERENITY_PROVISIONING_STALE_MS/,
    );
    expect(() => provisioningStaleMs({ SERENITY_PROVISIONING_STALE_MS: "soon" })).toThrow(
      /SERENITY_PROVISIONING_STALE_MS/,
    );
  });
});

describe("the asynchronous settle budget setting", () => {
  it("defaults to ten minutes and reads a positive integer per use", () => {
    expect(provisionSettleBudgetMs({})).toBe(600_000);
    expect(provisionSettleBudgetMs({ SERENITY_PROVISION_SETTLE_BUDGET_MS: "90000" })).toBe(90_000);
    expect(provisionSettleBudgetMs({ SERENITY_PROVISION_SETTLE_BUDGET_MS: "0" })).toBe(600_000);
  });
});
