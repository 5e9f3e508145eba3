import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BODY_LIMIT_BYTES } from "../../../src/api/app.ts";
import { isErrorCode } from "../../../src/domain/errors.ts";
import { createTestApp, TEST_AUTH_SECRET, type TestApp } from "../../support/testApp.ts";

let t: TestApp;
let admin: string;
let orgId: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.token({ sub: "admin", admin: true });
  orgId = (
    await t.app.inject({ method: "POST", url: "/v2/orgs", headers: auth(admin), payload: { name: "Org" } })
  ).json().id;
});
afterAll(() => t.close());

function expectEnvelope(
  response: { statusCode: number; json(): unknown; headers: Record<string, unknown> },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status);
  const body = response.json() as { error: string; message: string; requestId: string };
  expect(body.error).toBe(code);
  expect(isErrorCode(body.error)).toBe(true);
  expect(typeof body.message).toBe("string");
  expect(body.requestId).toBe(response.headers["x-request-id"]);
}

describe("bad input gets a registry envelope, never a 500", () => {
  it("malformed JSON → 400", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { ...auth(admin), "content-type": "application/json" },
      payload: '{"name": "x"',
    });
    expectEnvelope(response, 400, "invalidRequest");
  });

  it("unknown keys and wrong types → 400 naming the field", async () => {
    const unknown = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(admin),
      payload: { name: "x", color: "red" },
    });
    expectEnvelope(unknown, 400, "invalidRequest");
    const wrongType = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(admin),
      payload: { name: 42 },
    });
    expectEnvelope(wrongType, 400, "invalidRequest");
    expect(wrongType.json().message).toContain("name");
  });

  it("oversize body → 413", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { ...auth(admin), "content-type": "application/json" },
      payload: JSON.stringify({ name: "x".repeat(BODY_LIMIT_BYTES + 10) }),
    });
    expectEnvelope(response, 413, "payloadTooLarge");
  });

  it("a non-JSON content type → 415", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { ...auth(admin), "content-type": "text/xml" },
      payload: "<org/>",
    });
    expectEnvelope(response, 415, "unsupportedMediaType");
  });

  it("non-UUID ids → 400 before any lookup", async () => {
    expectEnvelope(
      await t.app.inject({ method: "GET", url: "/v2/orgs/not-a-uuid", headers: auth(admin) }),
      400,
      "invalidRequest",
    );
    expectEnvelope(
      await t.app.inject({ method: "GET", url: `/v2/orgs/${orgId}/brands/123`, headers: auth(admin) }),
      400,
      "invalidRequest",
    );
  });

  it("missing, malformed, expired and forged tokens → 401", async () => {
    const expired = await new SignJWT({ role: "admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("admin")
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(TEST_AUTH_SECRET));
    const forged = await new SignJWT({ role: "admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("admin")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("another-secret-entirely-0123456789"));
    const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"admin","role":"admin"}').toString("base64url")}.`;
    const noSub = await new SignJWT({ role: "admin" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode(TEST_AUTH_SECRET));
    const headers = [
      {},
      { authorization: "Basic abc" },
      { authorization: "Bearer" },
      auth("garbage"),
      auth(expired),
      auth(forged),
      auth(unsigned),
      auth(noSub),
    ];
    for (const header of headers) {
      expectEnvelope(
        await t.app.inject({ method: "GET", url: "/v2/orgs", headers: header }),
        401,
        "authenticationRequired",
      );
    }
  });

  it("unknown routes → 404 envelope; public routes need no token", async () => {
    expectEnvelope(
      await t.app.inject({ method: "GET", url: "/v2/nothing-here", headers: auth(admin) }),
      404,
      "notFound",
    );
    expect((await t.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/openapi.json" })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: "/docs" })).statusCode).toBeLessThan(400);
    const metrics = await t.app.inject({ method: "GET", url: "/metrics" });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain("serenity_http_requests_total");
  });

  it("echoes a well-formed x-request-id and replaces a malformed one", async () => {
    const good = await t.app.inject({
      method: "GET",
      url: "/v2/orgs",
      headers: { "x-request-id": "abc-123" },
    });
    expect(good.headers["x-request-id"]).toBe("abc-123");
    expect(good.json().requestId).toBe("abc-123");
    const bad = await t.app.inject({
      method: "GET",
      url: "/v2/orgs",
      headers: { "x-request-id": "bad id with spaces" },
    });
    expect(bad.headers["x-request-id"]).not.toBe("bad id with spaces");
  });
});
