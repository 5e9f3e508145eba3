import { describe, expect, it } from "vitest";

import { scrubError } from "../../../src/jobs/scrubError.ts";

describe("scrubError", () => {
  it("replaces handed-out tokens in message and stack", () => {
    const scrubbed = scrubError(new Error("401 for Bearer abcdefgh12345"), ["abcdefgh12345"]) as {
      message: string;
      stack: string;
    };
    expect(scrubbed.message).toBe("401 for Bearer [redacted]");
    expect(scrubbed.stack).not.toContain("abcdefgh12345");
    const untouched = new Error("x");
    expect(scrubError(untouched, [])).toBe(untouched);
  });
});
