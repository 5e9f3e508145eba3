import { describe, expect, it } from "vitest";

import { endpointGroupOf } from "../../../src/domain/endpointGroup.ts";

/** Semrush's endpoint groups for its request limits (spec/gateway.md §7). */
describe("endpointGroupOf", () => {
  it("puts every User Manager call in workspaces", () => {
    expect(endpointGroupOf("um", "/enterprise/users/api/v2/workspaces/w/child")).toBe("workspaces");
    expect(endpointGroupOf("um", "/v1/workspaces/{ws}/resources")).toBe("workspaces");
  });

  it("puts Project Engine aio calls (prompts, tags) in promptTracking, full paths and templates alike", () => {
    for (const path of [
      "/enterprise/projects/api/v3/workspaces/w/projects/p/aio/prompts",
      "/enterprise/projects/api/v2/workspaces/w/projects/p/aio/prompts/by_tags?include_metadata=true",
      "/v2/workspaces/{ws}/projects/{pid}/aio/tags",
      "/v2/workspaces/{ws}/projects/{pid}/aio/prompts/tags",
    ]) {
      expect(endpointGroupOf("pe", path)).toBe("promptTracking");
    }
  });

  it("puts every other Project Engine call in projects, even one whose query mentions aio", () => {
    for (const path of [
      "/enterprise/projects/api/v1/workspaces/w/projects",
      "/v1/workspaces/{ws}/projects/{pid}/publish",
      "/v2/workspaces/{ws}/projects/{pid}/ai_models",
      "/v1/languages",
      "/v1/workspaces/{ws}/brand-topics?domain=x/aio/y",
      "/v1/workspaces/w/projects/aiolos",
    ]) {
      expect(endpointGroupOf("pe", path)).toBe("projects");
    }
  });
});
