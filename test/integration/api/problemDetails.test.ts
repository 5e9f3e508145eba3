import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** Every error answer is one RFC 9457 problem shape (docs/decisions/0037), on every route. */
let t: TestApp;
let admin: string;
let orgId: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.token({ sub: "admin", admin: true });
  orgId = (
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: "Problems" },
    })
  ).json().id as string;
});
afterAll(() => t.close());

describe("problem details", () => {
  it("lists every validation problem of the body at once, each with a JSON pointer and a code", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands`,
      headers: { authorization: `Bearer ${admin}` },
      payload: {
        name: 7,
        domain: ["x"],
        semrushMarket: { market: 5, languageCode: "en" },
        extra: "z".repeat(500),
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const body = response.json();
    expect(body).toMatchObject({
      type: "/errors/invalidRequest",
      title: "The request is invalid.",
      status: 400,
      code: "invalidRequest",
      requestId: response.headers["x-request-id"],
      instance: `urn:serenity:request:${response.headers["x-request-id"]}`,
      error: "invalidRequest",
    });
    expect(body.message).toBe(body.detail);
    const pointers = (body.errors as { in: string; pointer: string; code: string }[]).map(
      (problem) => `${problem.in}:${problem.pointer}:${problem.code}`,
    );
    expect(pointers).toEqual(
      expect.arrayContaining([
        "body:/name:invalidType",
        "body:/domain:invalidType",
        "body:/semrushMarket/market:invalidType",
        "body::unrecognizedKeys",
      ]),
    );
    // The unknown key is the caller's own text: it is never echoed.
    expect(response.body).not.toContain("zzzz");
  });

  it("answers the same shape for a route that does not exist, a bad path id and a missing token", async () => {
    const cases = [
      { url: "/v2/nothing-here", token: admin, status: 404, code: "notFound" },
      { url: "/v2/orgs/not-a-uuid", token: admin, status: 400, code: "invalidRequest" },
      { url: `/v2/orgs/${orgId}`, token: undefined, status: 401, code: "authenticationRequired" },
    ];
    for (const { url, token, status, code } of cases) {
      const response = await t.app.inject({
        method: "GET",
        url,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      expect(response.statusCode, url).toBe(status);
      expect(response.headers["content-type"], url).toMatch(/^application\/problem\+json/);
      expect(response.json(), url).toMatchObject({ type: `/errors/${code}`, status, code, error: code });
    }
    const badId = await t.app.inject({
      method: "GET",
      url: "/v2/orgs/not-a-uuid",
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(badId.json().errors).toEqual([
      { in: "params", pointer: "/orgId", code: "invalidFormat", detail: "must be a UUID" },
    ]);
  });

  it("serves each code's documentation where its type points, without a token", async () => {
    const page = await t.app.inject({ method: "GET", url: "/errors/idempotencyKeyInProgress" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain("idempotencyKeyInProgress");
    expect(page.body).toContain("409");
    expect(page.body).toMatch(/Retry-After<\/dt><dd>1 s/);
    const index = await t.app.inject({ method: "GET", url: "/errors" });
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('id="upstreamBusy"');
    const unknown = await t.app.inject({ method: "GET", url: "/errors/noSuchCode" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe("notFound");
  });
});
