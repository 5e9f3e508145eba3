import { describe, expect, it } from "vitest";

import { defaultRetryDelayMs } from "../../../src/jobs/backoff.ts";

describe("retry ladder", () => {
  it("doubles from 1 s and caps at 60 s", () => {
    expect([1, 2, 3, 4, 7, 8, 30].map(defaultRetryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 60_000, 60_000, 60_000,
    ]);
  });
});
