import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { isErrorCode } from "../../../src/domain/errors.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * Generated malformed (and some well-formed) requests across the org, brand, job-list and
 * pool-history routes: every
 * answer is below 500, and every error is a registry envelope that echoes the request id.
 */

let t: TestApp;
let tokens: string[];
let orgId: string;
let brandId: string;

beforeAll(async () => {
  t = await createTestApp();
  const admin = await t.token({ sub: "admin", admin: true });
  orgId = (
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: "Org" },
    })
  ).json().id;
  brandId = (
    await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands`,
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: "Brand" },
    })
  ).json().id;
  tokens = [
    admin,
    await t.token({ sub: "member", orgs: [orgId] }),
    await t.token({ sub: "stranger", orgs: [] }),
    "not-a-jwt",
    "",
  ];
});
afterAll(() => t.close());

const idSegment = () =>
  fc.oneof(
    fc.constant(orgId),
    fc.constant(brandId),
    fc.uuid(),
    fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
    fc.constantFrom("0", "-1", "%00", "..", "null", "'; drop table orgs; --"),
  );

/** Query strings of the list routes (jobs, pool history): valid, out-of-range and hostile values. */
const queryValue = fc.oneof(
  fc.constantFrom("IN_PROGRESS", "FAILED", "provisionWorkspace", "50", "0", "201", "2026-01-01T00:00:00Z"),
  fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s)),
  fc.constantFrom("%00", "'; drop table jobs; --", "9".repeat(30), "WyIyMDI2IiwieCJd"),
);
const query = fc
  .dictionary(fc.constantFrom("status", "type", "brandId", "limit", "cursor", "since", "other"), queryValue, {
    maxKeys: 3,
  })
  .map((params) => {
    const pairs = Object.entries(params).map(([key, value]) => `${key}=${value}`);
    return pairs.length > 0 ? `?${pairs.join("&")}` : "";
  });

const path = () =>
  fc.oneof(
    fc.constant("/v2/orgs"),
    idSegment().map((id) => `/v2/orgs/${id}`),
    idSegment().map((id) => `/v2/orgs/${id}/brands`),
    fc.tuple(idSegment(), idSegment()).map(([o, b]) => `/v2/orgs/${o}/brands/${b}`),
    // The console's reads: the org job list, a job's timeline, the pool history and summaries.
    fc.tuple(idSegment(), query).map(([o, q]) => `/v2/orgs/${o}/serenity/jobs${q}`),
    fc.tuple(idSegment(), idSegment()).map(([o, j]) => `/v2/orgs/${o}/serenity/jobs/${j}/timeline`),
    fc.tuple(idSegment(), query).map(([o, q]) => `/v2/orgs/${o}/serenity/pool-history${q}`),
    query.map((q) => `/v2/serenity/pool-summaries${q}`),
  );

/** Strings that stress storage and validation: control characters, NUL, long, unicode, SQL. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom("", " ", "\t", "'; drop table orgs; --", "ÿ".repeat(250), "💥".repeat(120)),
);
const nastyValue = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue()),
  },
);

const orgBody = fc.record({ name: nastyValue, parentWorkspaceId: nastyValue }, { requiredKeys: [] });
const brandBody = fc.record(
  {
    name: nastyValue,
    domain: fc.oneof(fc.domain(), nastyValue),
    primaryUrl: fc.oneof(fc.webUrl(), nastyValue),
    async: nastyValue,
  },
  { requiredKeys: [] },
);
const anyJson = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 10 }), fc.anything(), { maxKeys: 4 }),
  fc.jsonValue(),
);
const asJson = (value: unknown) => ({ contentType: "application/json", payload: JSON.stringify(value) });
const token = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, 1) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }) },
);

/** Route-shaped requests (so bodies reach the services) mixed with fully arbitrary ones. */
const request = fc.oneof(
  fc.record({ method: fc.constant("POST"), url: fc.constant("/v2/orgs"), token, body: orgBody.map(asJson) }),
  fc.record({
    method: fc.constant("PATCH"),
    url: idSegment().map((id) => `/v2/orgs/${id}`),
    token,
    body: orgBody.map(asJson),
  }),
  fc.record({
    method: fc.constant("POST"),
    url: idSegment().map((id) => `/v2/orgs/${id}/brands`),
    token,
    body: brandBody.map(asJson),
  }),
  fc.record({
    method: fc.constantFrom("GET", "POST", "PATCH", "PUT", "DELETE"),
    url: path(),
    token,
    body: fc.oneof(
      { weight: 3, arbitrary: fc.oneof(orgBody, brandBody, anyJson).map(asJson) },
      {
        weight: 1,
        arbitrary: fc
          .string({ maxLength: 200 })
          .map((raw) => ({ contentType: "application/json", payload: raw })),
      },
      {
        weight: 1,
        arbitrary: fc.string({ maxLength: 100 }).map((raw) => ({ contentType: "text/plain", payload: raw })),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  }),
);

describe("generated requests never produce a server error", () => {
  it("answers every request with < 500 and a registry envelope on errors", async () => {
    await fc.assert(
      fc.asyncProperty(request, async ({ method, url, token, body }) => {
        const headers: Record<string, string> = {};
        if (tokens[token]) headers.authorization = `Bearer ${tokens[token]}`;
        if (body) headers["content-type"] = body.contentType;
        const response = await t.app.inject({
          method: method as "GET",
          url,
          headers,
          ...(body && method !== "GET" && method !== "DELETE" ? { payload: body.payload } : {}),
        });
        expect(response.statusCode, `${method} ${url} → ${response.body}`).toBeLessThan(500);
        if (response.statusCode >= 400) {
          const envelope = response.json();
          expect(isErrorCode(envelope.error)).toBe(true);
          expect(envelope.requestId).toBe(response.headers["x-request-id"]);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
