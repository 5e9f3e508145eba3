import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { isErrorCode } from "../../../src/domain/errors.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * Generated malformed (and some well-formed) requests across **every route of the OpenAPI
 * document** — so a route added later is covered without editing this file — against the real
 * gateway client and the simulator: every answer is below 500, every error is a registry envelope
 * that echoes the request id, and no error body carries a token, a workspace id or upstream text.
 */

const RUNS = 5_000;

let t: TestApp;
let sim: TestSimulator;
let tokens: string[];
let orgId: string;
let brandId: string;
let subWorkspaceBrandId: string;

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyKeys: string[] | undefined;
}
let operations: Operation[];

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "unmetered" });
  await sim.control("/settings", { settleReads: 0 });
  t = await createTestApp({ gateway: { url: sim.url, maxRetries: 0 } });
  const admin = await t.token({ sub: "admin", admin: true });
  orgId = (
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(admin),
      payload: { name: "Org", parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID },
    })
  ).json().id;
  brandId = (
    await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands`,
      headers: auth(admin),
      payload: { name: "Brand" },
    })
  ).json().id;
  const withMarket = await t.app.inject({
    method: "POST",
    url: `/v2/orgs/${orgId}/brands`,
    headers: auth(admin),
    payload: {
      name: "Market brand",
      domain: "market.example",
      semrushMarket: { market: "US", languageCode: "en" },
    },
  });
  expect(withMarket.statusCode).toBe(201);
  subWorkspaceBrandId = withMarket.json().id;
  tokens = [
    admin,
    await t.token({ sub: "member", orgs: [orgId] }),
    await t.token({ sub: "stranger", orgs: [] }),
    "not-a-jwt",
    "",
  ];

  const document = t.app.swagger() as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: { in: string; name: string }[];
          requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
        }
      >
    >;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      pathParams: (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name),
      queryParams: (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      bodyKeys: operation.requestBody
        ? Object.keys(operation.requestBody.content["application/json"]?.schema.properties ?? {})
        : undefined,
    })),
  );
  // The document lists the routes this test must reach (a sanity check on the parsing above).
  expect(operations.length).toBeGreaterThan(20);
  expect(operations.some((op) => op.bodyKeys?.includes("items"))).toBe(true);
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

/** Strings that stress storage and validation: control characters, NUL, long, unicode, SQL. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom("", " ", "\t", "'; drop table orgs; --", "ÿ".repeat(250), "💥".repeat(120), "..", "%00"),
);
const nastyValue = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue()),
  },
);

/** Values a route would accept, so generated requests also get past validation into services. */
const plausible: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.constantFrom("Acme", "Lumière", "Brand B"),
  domain: fc.constantFrom("acme.example", "lumiere.example"),
  primaryUrl: fc.constantFrom("https://acme.example", "http://x"),
  market: fc.constantFrom("US", "FR", "DE", "ZZ", "us"),
  languageCode: fc.constantFrom("en", "fr", "de", "xx"),
  geoTargetId: fc.constantFrom(2840, 2250, "2840", 0, -1),
  modelIds: fc.array(fc.constantFrom("search-gpt", "gpt-5", "nope", ""), { maxLength: 4 }),
  async: fc.boolean(),
  generatePrompts: fc.boolean(),
  parentWorkspaceId: fc.constantFrom(null, UNMETERED_PARENT_WORKSPACE_ID, "ws-unknown"),
  semrushMarket: fc.record(
    { market: fc.constantFrom("US", "FR", "ZZ"), languageCode: fc.constantFrom("en", "fr", "zz") },
    { requiredKeys: [] },
  ),
  markets: fc.array(
    fc.record({ market: fc.constantFrom("US", "FR"), languageCode: fc.constantFrom("en", "fr") }),
    {
      maxLength: 2,
    },
  ),
  items: fc.array(
    fc.record(
      {
        text: fc.oneof(fc.constantFrom("Which moisturiser is best?", "What is Acme?"), nastyString),
        geoTargetId: fc.constantFrom(2840, 2250, 1),
        languageCode: fc.constantFrom("en", "fr"),
        category: nastyString,
      },
      { requiredKeys: [] },
    ),
    { maxLength: 5 },
  ),
  ids: fc.array(fc.oneof(fc.uuid(), nastyString), { maxLength: 3 }),
  limit: fc.constantFrom("1", "50", "201", "-1", "abc"),
  page: fc.constantFrom("1", "0", "x"),
  includeDrafts: fc.constantFrom("true", "false", "yes"),
  before: fc.constantFrom("2026-01-01T00:00:00Z", "yesterday"),
  cursor: fc.constantFrom("", "abc", "eyJ4IjoxfQ"),
  status: fc.constantFrom("IN_PROGRESS", "FAILED", "nope"),
  type: fc.constantFrom("provisionWorkspace", "nope"),
  count: fc.constantFrom(1, 5, 100, 0, 101),
  generator: fc.constantFrom("builtin", "drs", "openai", "nope"),
};
const valueFor = (key: string) =>
  plausible[key]
    ? fc.oneof({ weight: 2, arbitrary: plausible[key] }, { weight: 1, arbitrary: nastyValue })
    : nastyValue;

/** A path parameter: one of ours (so tenancy and services run), a foreign UUID, or junk. */
const pathValue = (name: string) => {
  const ours: Record<string, fc.Arbitrary<string>> = {
    orgId: fc.constant(orgId),
    brandId: fc.constantFrom(brandId, subWorkspaceBrandId),
    geoTargetId: fc.constantFrom("2840", "2250"),
    languageCode: fc.constantFrom("en", "fr"),
  };
  return fc.oneof(
    { weight: 3, arbitrary: ours[name] ?? fc.uuid() },
    { weight: 1, arbitrary: fc.uuid() },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
        fc.constantFrom("0", "-1", "%00", "..", "null", "%27%3B%20drop", "A".repeat(300)),
      ),
    },
  );
};

const body = (keys: string[] | undefined) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record(Object.fromEntries((keys ?? ["name"]).map((key) => [key, valueFor(key)])), {
          requiredKeys: [],
        })
        .map((value) => ({ contentType: "application/json", payload: JSON.stringify(value) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.dictionary(fc.string({ maxLength: 10 }), fc.anything(), { maxKeys: 4 }), fc.jsonValue())
        .map((value) => ({ contentType: "application/json", payload: JSON.stringify(value) ?? "null" })),
    },
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
  );

const token = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, 1) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }) },
);

/** One request shaped after a documented operation (sometimes with another method). */
const request = () =>
  fc.integer({ min: 0, max: operations.length - 1 }).chain((index) => {
    const operation = operations[index]!;
    return fc.record({
      route: fc.constant(`${operation.method} ${operation.path}`),
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constant(operation.method) },
        { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PATCH", "PUT", "DELETE") },
      ),
      path: fc
        .tuple(...operation.pathParams.map((name) => pathValue(name).map((value) => [name, value] as const)))
        .map((pairs) =>
          pairs.reduce((path, [name, value]) => path.replace(`{${name}}`, value), operation.path),
        ),
      query: fc
        .record(Object.fromEntries(operation.queryParams.map((name) => [name, valueFor(name)])), {
          requiredKeys: [],
        })
        .map((query) =>
          new URLSearchParams(
            Object.entries(query).map(([key, value]): [string, string] => [
              key,
              typeof value === "string" ? value : JSON.stringify(value),
            ]),
          ).toString(),
        ),
      token,
      body: body(operation.bodyKeys),
    });
  });

describe("generated requests on every documented route never produce a server error", () => {
  it(
    `answers ${RUNS} requests with < 500 and a clean registry envelope on errors`,
    { timeout: 600_000 },
    async () => {
      const reached = new Set<string>();
      await fc.assert(
        fc.asyncProperty(
          request(),
          async ({ route, method, path, query, token: tokenIndex, body: payload }) => {
            const headers: Record<string, string> = {};
            if (tokens[tokenIndex]) headers.authorization = `Bearer ${tokens[tokenIndex]}`;
            if (payload) headers["content-type"] = payload.contentType;
            const url = query ? `${path}?${query}` : path;
            const response = await t.app.inject({
              method: method as "GET",
              url,
              headers,
              ...(payload && method !== "GET" && method !== "DELETE" ? { payload: payload.payload } : {}),
            });
            expect(response.statusCode, `${method} ${url} → ${response.body}`).toBeLessThan(500);
            if (response.statusCode < 400 && route.startsWith(`${method} `)) reached.add(route);
            if (response.statusCode >= 400 && response.statusCode !== 408) {
              const envelope = response.json();
              expect(isErrorCode(envelope.error), response.body).toBe(true);
              expect(envelope.requestId).toBe(response.headers["x-request-id"]);
              for (const secret of [
                ...tokens.filter((value) => value.length > 10),
                UNMETERED_PARENT_WORKSPACE_ID,
              ])
                expect(response.body).not.toContain(secret);
            }
          },
        ),
        { numRuns: RUNS },
      );
      // Enough requests got past validation and tenancy to exercise the services behind the routes.
      process.stderr.write(`routes answered < 400: ${reached.size} of ${operations.length}\n`);
      expect(reached.size).toBeGreaterThan(operations.length / 2);
    },
  );
});
