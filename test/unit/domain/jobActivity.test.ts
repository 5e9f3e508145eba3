import { describe, expect, it } from "vitest";

import { isJobStuck } from "../../../src/domain/jobActivity.ts";

const now = new Date("2026-05-01T12:00:00.000Z");
const grace = 120_000;
const ago = (ms: number) => new Date(now.getTime() - ms);

describe("isJobStuck", () => {
  it("flags only IN_PROGRESS jobs nothing touched for the grace", () => {
    const base = { status: "IN_PROGRESS" as const, leaseExpiresAt: null, leased: false };
    expect(isJobStuck({ ...base, updatedAt: ago(grace + 1) }, now, grace)).toBe(true);
    expect(isJobStuck({ ...base, updatedAt: ago(grace - 1) }, now, grace)).toBe(false);
    expect(isJobStuck({ ...base, status: "FAILED", updatedAt: ago(grace * 10) }, now, grace)).toBe(false);
    expect(isJobStuck({ ...base, status: "COMPLETED", updatedAt: ago(grace * 10) }, now, grace)).toBe(false);
  });

  it("judges a leased job by its lease expiry, not by its last write", () => {
    const leased = { status: "IN_PROGRESS" as const, leased: true, updatedAt: ago(grace * 10) };
    expect(isJobStuck({ ...leased, leaseExpiresAt: new Date(now.getTime() + 1_000) }, now, grace)).toBe(
      false,
    );
    expect(isJobStuck({ ...leased, leaseExpiresAt: ago(grace - 1) }, now, grace)).toBe(false);
    expect(isJobStuck({ ...leased, leaseExpiresAt: ago(grace + 1) }, now, grace)).toBe(true);
  });
});
