import { describe, expect, it } from "vitest";

import { buildPath } from "../../../src/gateway/routeTemplate.ts";

describe("buildPath", () => {
  it("prefixes each gateway and fills the template", () => {
    expect(buildPath("um", "/v1/workspaces/{ws}/resources", { ws: "w-1" })).toBe(
      "/enterprise/users/api/v1/workspaces/w-1/resources",
    );
    expect(buildPath("pe", "/v1/workspaces/{ws}/projects/{pid}", { ws: "w", pid: "p" })).toBe(
      "/enterprise/projects/api/v1/workspaces/w/projects/p",
    );
  });
  it("encodes parameters so an id cannot change the path", () => {
    expect(buildPath("um", "/v1/workspaces/{ws}", { ws: "../admin?x=1" })).toBe(
      "/enterprise/users/api/v1/workspaces/..%2Fadmin%3Fx%3D1",
    );
  });
  it("appends the query, skipping undefined values and keeping empty strings", () => {
    expect(
      buildPath("pe", "/v2/tags", {}, { parent_id: "", search: "", draft: true, page: 2, skip: undefined }),
    ).toBe("/enterprise/projects/api/v2/tags?parent_id=&search=&draft=true&page=2");
  });
  it("refuses a missing or empty parameter", () => {
    expect(() => buildPath("um", "/v1/workspaces/{ws}", {})).toThrow(TypeError);
    expect(() => buildPath("um", "/v1/workspaces/{ws}", { ws: "" })).toThrow(TypeError);
  });
});
