import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** CORS for a UI on another origin (ADR 0037): preflights without a token, exposed headers. */
const UI = "https://ui.example";
let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp({ corsOrigins: [UI] });
  admin = await t.token({ sub: "admin-cors", admin: true });
});
afterAll(() => t.close());

function preflight(url: string, origin: string) {
  return t.app.inject({
    method: "OPTIONS",
    url,
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type, idempotency-key",
    },
  });
}

describe("CORS", () => {
  it("answers a preflight from an allowed origin without a token, on any route", async () => {
    for (const url of [
      "/v2/orgs",
      "/v2/orgs/8a3c1a52-58a4-4b8e-9f57-8a0f3f0e0b1d/brands",
      "/v2/no-such-route",
    ]) {
      const response = await preflight(url, UI);
      expect(response.statusCode, url).toBe(204);
      expect(response.headers["access-control-allow-origin"], url).toBe(UI);
      expect(response.headers["access-control-allow-methods"], url).toContain("POST");
      expect(String(response.headers["access-control-allow-headers"]), url).toMatch(
        /authorization.*content-type.*idempotency-key/,
      );
      expect(response.headers["access-control-allow-credentials"], url).toBeUndefined();
      expect(response.headers.vary, url).toMatch(/Origin/);
    }
  });

  it("gives another origin's preflight no CORS headers, and still never a 401", async () => {
    const response = await preflight("/v2/orgs", "https://evil.example");
    expect(response.statusCode).toBe(204);
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    const bare = await t.app.inject({ method: "OPTIONS", url: "/v2/orgs" });
    expect(bare.statusCode).toBe(204);
  });

  it("lets the UI read the answer and its headers, successes and errors alike", async () => {
    const created = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { origin: UI, authorization: `Bearer ${admin}`, "idempotency-key": "cors-1" },
      payload: { name: "Cors" },
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers["access-control-allow-origin"]).toBe(UI);
    const exposed = String(created.headers["access-control-expose-headers"]).split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining([
        "x-request-id",
        "retry-after",
        "idempotent-replayed",
        "location",
        "ratelimit",
        "ratelimit-policy",
      ]),
    );
    const refused = await t.app.inject({ method: "GET", url: "/v2/orgs", headers: { origin: UI } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers["access-control-allow-origin"]).toBe(UI);
    const foreign = await t.app.inject({
      method: "GET",
      url: "/v2/orgs",
      headers: { origin: "https://evil.example", authorization: `Bearer ${admin}` },
    });
    expect(foreign.statusCode).toBe(200);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
