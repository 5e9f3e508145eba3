import { describe, expect, it } from "vitest";

import { isReadyStatus, isTerminalStatus, normaliseStatus } from "../../../src/gateway/workspaceStatus.ts";

describe("workspace status (spec/gateway.md §4)", () => {
  it.each([
    // status, ready, terminal
    ["created", true, false],
    ["active", true, false],
    [" Created ", true, false],
    ["ACTIVE", true, false],
    ["not ready", false, false],
    ["Not Ready", false, false],
    ["deleting", false, false],
    ["error", false, true],
    ["creation failed", false, true],
    ["creation_failed", false, true],
    ["Creation Failed ", false, true],
    ["invalid subscription", false, true],
    ["INVALID SUBSCRIPTION", false, true],
    ["", false, false],
    ["something new", false, false],
  ])("%j: ready=%s terminal=%s", (status, ready, terminal) => {
    expect(isReadyStatus(status)).toBe(ready);
    expect(isTerminalStatus(status)).toBe(terminal);
  });
  it("normalises by trimming and lower-casing only", () => {
    expect(normaliseStatus("  Not Ready\t")).toBe("not ready");
    expect(normaliseStatus("creation_failed")).toBe("creation_failed");
  });
});
