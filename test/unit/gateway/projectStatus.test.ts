import { describe, expect, it } from "vitest";

import { isPublishedStatus } from "../../../src/gateway/projectStatus.ts";

describe("project publish status", () => {
  it.each([
    ["live", true],
    ["live_with_unpublished_updates", true],
    [" LIVE ", true],
    ["draft", false],
    ["publishing", false],
    ["initial_publish_failed", false],
    [undefined, false],
  ])("%j → %s", (status, published) => expect(isPublishedStatus(status)).toBe(published));
});
