import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("request logs", () => {
  it("carry the request id and never the bearer token", async () => {
    const token = await t.token({ sub: "admin", admin: true });
    const response = await t.app.inject({
      method: "GET",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-logs-1", cookie: `session=${token}` },
    });
    expect(response.statusCode).toBe(200);
    const mine = t.logs.lines.filter((line) => line.includes('"requestId":"req-logs-1"'));
    expect(mine.length).toBeGreaterThanOrEqual(2);
    for (const line of t.logs.lines) expect(line).not.toContain(token);

    await t.app.inject({
      method: "GET",
      url: "/v2/orgs",
      headers: { authorization: "Bearer not.a.valid-token-xyz" },
    });
    for (const line of t.logs.lines) expect(line).not.toContain("not.a.valid-token-xyz");
  });
});
