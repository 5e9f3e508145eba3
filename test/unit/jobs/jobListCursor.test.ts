import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { decodeJobCursor, encodeJobCursor } from "../../../src/jobs/jobListCursor.ts";

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
