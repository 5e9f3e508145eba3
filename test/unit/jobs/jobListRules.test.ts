import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { isJobStuck } from "../../../src/domain/jobActivity.ts";
import { decodeJobCursor, encodeJobCursor } from "../../../src/jobs/jobListCursor.ts";

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

describe("the job list cursor", () => {
  it("round-trips every position", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }),
        fc.uuid(),
        (createdAt, id) => {
          const cursor = encodeJobCursor({ createdAt, id });
          expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(decodeJobCursor(cursor)).toEqual({ createdAt, id });
        },
      ),
    );
  });

  it("refuses anything it did not give out", () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    for (const cursor of [
      "",
      "not base64 at all!",
      encode({ createdAt: "2026-01-01T00:00:00.000Z" }),
      encode(["2026-01-01T00:00:00.000Z"]),
      encode(["2026-01-01", "00000000-0000-4000-8000-000000000000"]),
      encode(["2026-01-01T00:00:00.000Z", "not-a-uuid"]),
      encode([1, 2]),
    ]) {
      expect(decodeJobCursor(cursor), cursor).toBeUndefined();
    }
    fc.assert(
      // Whatever decodes re-encodes to the very same cursor: nothing else is accepted.
      fc.property(fc.string(), (garbage) => {
        const decoded = decodeJobCursor(garbage);
        return decoded === undefined || encodeJobCursor(decoded) === garbage;
      }),
    );
  });
});
