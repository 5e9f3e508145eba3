import { describe, expect, it } from "vitest";

import { messageIdFor } from "../../../src/jobs/queue.ts";

describe("message ids", () => {
  it("are deterministic v4-shaped UUIDs per key", () => {
    expect(messageIdFor("k")).toBe(messageIdFor("k"));
    expect(messageIdFor("k")).not.toBe(messageIdFor("k2"));
    expect(messageIdFor("k")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
