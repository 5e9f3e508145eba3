import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { startTestSimulator } from "../../support/simulator.ts";
import { createTestApp, TEST_AUTH_SECRET, type TestApp } from "../../support/testApp.ts";

/** Regressions from the security review: each case once produced a 5xx, a leak or a bypass. */

let t: TestApp;
let sim: Awaited<ReturnType<typeof startTestSimulator>>;
let admin: string;
let orgId: string;
let brandId: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "unmetered", controls: true });
  t = await createTestApp({ gateway: { url: sim.url, maxRetries: 0 } });
  admin = await t.token({ sub: "admin", admin: true });
  orgId = (
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(admin),
      payload: { name: "Org", parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID },
    })
  ).json().id;
  brandId = (
    await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands`,
      headers: auth(admin),
      payload: { name: "Brand", domain: "brand.example" },
    })
  ).json().id;
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

describe("security regressions", () => {
  it("a geoTargetId beyond a 32-bit integer is a 400, not a database overflow", async () => {
    const response = await t.app.inject({
      method: "DELETE",
      url: `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`,
      headers: auth(admin),
      payload: { geoTargetId: 3_000_000_000, languageCode: "en", ids: ["x"] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe("invalidRequest");
  });

  it("a URL with a NUL byte is a 400, on brands and on markets", async () => {
    const market = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands/${brandId}/serenity/markets`,
      headers: auth(admin),
      payload: { market: "US", languageCode: "en", primaryUrl: "https://example.com/\u0000x" },
    });
    expect(market.statusCode).toBe(400);
    const brand = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands`,
      headers: auth(admin),
      payload: { name: "n", primaryUrl: "https://example.com/\u0000x" },
    });
    expect(brand.statusCode).toBe(400);
  });

  it("a workspace id that could walk an upstream path is refused", async () => {
    const response = await t.app.inject({
      method: "PATCH",
      url: `/v2/orgs/${orgId}`,
      headers: auth(admin),
      payload: { parentWorkspaceId: ".." },
    });
    expect(response.statusCode).toBe(400);
  });

  it("non-UUID org claims are ignored rather than reaching a uuid column", async () => {
    const token = await t.token({ sub: "odd", orgs: ["not-a-uuid", orgId.toUpperCase()] });
    const response = await t.app.inject({ method: "GET", url: "/v2/orgs", headers: auth(token) });
    expect(response.statusCode).toBe(200);
    expect(response.json().items.map((org: { id: string }) => org.id)).toEqual([orgId]);
  });

  it("an upper-case id of one's own org finds it", async () => {
    const member = await t.token({ sub: "member", orgs: [orgId] });
    const response = await t.app.inject({
      method: "GET",
      url: `/v2/orgs/${orgId.toUpperCase()}`,
      headers: auth(member),
    });
    expect(response.statusCode).toBe(200);
  });

  it("a token without exp is refused", async () => {
    const eternal = await new SignJWT({ role: "admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("admin")
      .sign(new TextEncoder().encode(TEST_AUTH_SECRET));
    const response = await t.app.inject({ method: "GET", url: "/v2/orgs", headers: auth(eternal) });
    expect(response.statusCode).toBe(401);
  });

  it("router-level errors (a malformed URL) get the problem shape", async () => {
    const response = await t.app.inject({ method: "GET", url: "/v2/orgs/%zz", headers: auth(admin) });
    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual({
      type: "/errors/invalidRequest",
      title: "The request is invalid.",
      status: 400,
      detail: expect.any(String),
      instance: `urn:serenity:request:${response.headers["x-request-id"]}`,
      code: "invalidRequest",
      requestId: response.headers["x-request-id"],
      error: "invalidRequest",
      message: expect.any(String),
    });
    expect(response.body).not.toContain("%zz");
  });

  it("unknown body keys are named as a problem, not echoed", async () => {
    const key = `SECRET-${"x".repeat(500)}`;
    const response = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(admin),
      payload: { name: "x", [key]: 1 },
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain("SECRET-");
  });

  it("an upstream body echoing the bearer never reaches a log line", async () => {
    const token = await t.token({ sub: "echo", orgs: [orgId] });
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: "/languages$" },
      action: {
        status: 500,
        body: `upstream debug: Authorization: Bearer ${token}`,
        contentType: "text/plain",
      },
      times: 1,
    });
    const response = await t.app.inject({
      method: "GET",
      url: "/v2/serenity/languages",
      headers: auth(token),
    });
    expect(response.statusCode).toBe(502);
    expect(response.body).not.toContain(token);
    const upstreamLines = t.logs.lines.filter((line) => line.includes("upstream debug"));
    expect(upstreamLines.length).toBeGreaterThan(0);
    for (const line of t.logs.lines) expect(line).not.toContain(token);
  });
});
