import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** pino's numeric level of `info`: what a log read at LOG_LEVEL=info shows of a request. */
const INFO = 30;

function linesAtInfoOf(t: TestApp, requestId: string): Record<string, unknown>[] {
  return t.logs.lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.requestId === requestId && (line.level as number) >= INFO);
}

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
    expect(mine.length).toBeGreaterThanOrEqual(1);
    for (const line of t.logs.lines) expect(line).not.toContain(token);

    await t.app.inject({
      method: "GET",
      url: "/v2/orgs",
      headers: { authorization: "Bearer not.a.valid-token-xyz" },
    });
    for (const line of t.logs.lines) expect(line).not.toContain("not.a.valid-token-xyz");
  });

  it("are one line per request at info, with method, URL, route, status and time", async () => {
    const token = await t.token({ sub: "admin", admin: true });
    await t.app.inject({
      method: "GET",
      url: "/v2/orgs?limit=5",
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-logs-one" },
    });
    const lines = linesAtInfoOf(t, "req-logs-one");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: "request completed",
      method: "GET",
      url: "/v2/orgs?limit=5",
      route: "/v2/orgs",
      statusCode: 200,
    });
    expect(typeof lines[0]!.responseTime).toBe("number");
  });

  it("are one line for a rejected request too, carrying its registry code", async () => {
    const token = await t.token({ sub: "admin", admin: true });
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-logs-bad" },
      payload: { name: 42 },
    });
    const lines = linesAtInfoOf(t, "req-logs-bad");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: "request completed", statusCode: 400, code: "invalidRequest" });

    await t.app.inject({
      method: "GET",
      url: "/no/such/route",
      headers: { authorization: `Bearer ${token}`, "x-request-id": "req-logs-404" },
    });
    expect(linesAtInfoOf(t, "req-logs-404")).toEqual([
      expect.objectContaining({ statusCode: 404, route: "unmatched", code: "notFound" }),
    ]);
  });

  it("a caller's id is a bounded correlation, never a key: the same id twice is two requests, each logged as the caller's", async () => {
    const token = await t.token({ sub: "admin", admin: true });
    const send = (requestId: string) =>
      t.app.inject({
        method: "POST",
        url: "/v2/orgs",
        headers: { authorization: `Bearer ${token}`, "x-request-id": requestId },
        payload: { name: `Twice ${Math.random()}` },
      });
    const first = await send("same-id");
    const second = await send("same-id");
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(first.json().id).not.toBe(second.json().id);
    const lines = linesAtInfoOf(t, "same-id");
    expect(lines).toHaveLength(2);
    expect(lines.map((line) => line.requestIdFrom)).toEqual(["caller", "caller"]);

    const long = await send("x".repeat(129));
    expect(long.headers["x-request-id"]).not.toBe("x".repeat(129));
    expect(linesAtInfoOf(t, String(long.headers["x-request-id"]))[0]).toMatchObject({
      requestIdFrom: "serenity",
    });
    expect((await send("y".repeat(128))).headers["x-request-id"]).toBe("y".repeat(128));
  });
});
