import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The error codes of docs/openapi.json are what the routes answer: a sample of them provoked
 * through the app, each answer's code found in the document under its route, method and status.
 * (Every suite on createTestApp also fails on a code its route does not declare.)
 */

type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
interface Probe {
  method: Method;
  url: string;
  /** The route template, as the document names the path. */
  path: string;
  token?: string | null;
  payload?: unknown;
  headers?: Record<string, string>;
  expected: { status: number; code: string };
}

let t: TestApp;
let admin: string;
let user: string;
let orgId: string;
let flatBrandId: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read loosely
let document: any;

beforeAll(async () => {
  t = await createTestApp();
  document = t.app.swagger();
  admin = await t.token({ sub: "admin", admin: true });
  const org = await t.app.inject({
    method: "POST",
    url: "/v2/orgs",
    headers: { authorization: `Bearer ${admin}` },
    payload: { name: "Declared", parentWorkspaceId: "ws-declared-parent" },
  });
  orgId = org.json().id;
  user = await t.token({ sub: "user-declared", orgs: [orgId] });
  const brand = await t.app.inject({
    method: "POST",
    url: `/v2/orgs/${orgId}/brands`,
    headers: { authorization: `Bearer ${user}` },
    payload: { name: "Flat one" },
  });
  flatBrandId = brand.json().id;
});
afterAll(() => t.close());

function declaredCodes(path: string, method: Method, status: number): string[] {
  const openApiPath = path.replace(/:(\w+)/g, "{$1}");
  const response = document.paths[openApiPath]?.[method.toLowerCase()]?.responses?.[String(status)];
  const schema = response?.content?.["application/problem+json"]?.schema;
  return schema?.allOf?.[1]?.properties?.code?.enum ?? [];
}

async function answer(probe: Probe) {
  const token = probe.token === undefined ? user : probe.token;
  const response = await t.app.inject({
    method: probe.method,
    url: probe.url,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...probe.headers },
    ...(probe.payload === undefined ? {} : { payload: probe.payload as string }),
  });
  return { status: response.statusCode, code: response.json().code as string };
}

describe("the error codes the OpenAPI document declares per route", () => {
  it("every route's document lists the codes of each status, with when each is sent", () => {
    const create = document.paths["/v2/orgs/{orgId}/brands"].post.responses["409"];
    expect(create.description).toMatch(/`brandExists`: a brand is created with a name the org already has/);
    expect(create.description).not.toMatch(/Default Response/);
    // A read route does not claim a create's conflicts.
    expect(document.paths["/v2/orgs/{orgId}/brands"].get.responses["409"]).toBeUndefined();
    for (const [path, operations] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(
      document.paths,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!path.startsWith("/v2/")) continue;
        for (const status of ["400", "401", "500", "503"]) {
          expect(
            declaredCodes(path, method.toUpperCase() as Method, Number(status)),
            `${method} ${path} ${status}`,
          ).not.toHaveLength(0);
        }
        void operation;
      }
    }
  });

  it("a sample of provoked errors: each answered code is declared for its route and status", async () => {
    const unknownOrg = randomUUID();
    const key = `declared-${randomUUID()}`;
    const probes: Probe[] = [
      {
        method: "GET",
        url: "/v2/orgs",
        path: "/v2/orgs",
        token: null,
        expected: { status: 401, code: "authenticationRequired" },
      },
      {
        method: "POST",
        url: "/v2/orgs",
        path: "/v2/orgs",
        payload: { name: "not mine" },
        expected: { status: 403, code: "forbidden" },
      },
      {
        method: "POST",
        url: "/v2/orgs",
        path: "/v2/orgs",
        token: admin,
        payload: { name: "Copycat", parentWorkspaceId: "ws-declared-parent" },
        expected: { status: 409, code: "parentWorkspaceInUse" },
      },
      {
        method: "PATCH",
        url: `/v2/orgs/${orgId}`,
        path: "/v2/orgs/:orgId",
        token: admin,
        payload: { name: 42 },
        expected: { status: 400, code: "invalidRequest" },
      },
      {
        method: "GET",
        url: `/v2/orgs/${unknownOrg}`,
        path: "/v2/orgs/:orgId",
        expected: { status: 404, code: "notFound" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands`,
        path: "/v2/orgs/:orgId/brands",
        payload: { name: "flat ONE" },
        expected: { status: 409, code: "brandExists" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands`,
        path: "/v2/orgs/:orgId/brands",
        payload: "<brand/>",
        headers: { "content-type": "text/xml" },
        expected: { status: 415, code: "unsupportedMediaType" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands`,
        path: "/v2/orgs/:orgId/brands",
        payload: { name: "x".repeat(2 * 1024 * 1024) },
        expected: { status: 413, code: "payloadTooLarge" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands`,
        path: "/v2/orgs/:orgId/brands",
        payload: { name: "Keyed one" },
        headers: { "idempotency-key": key },
        expected: { status: 201, code: "" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands`,
        path: "/v2/orgs/:orgId/brands",
        payload: { name: "Keyed two" },
        headers: { "idempotency-key": key },
        expected: { status: 422, code: "idempotencyKeyReused" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands/${flatBrandId}/serenity/markets`,
        path: "/v2/orgs/:orgId/brands/:brandId/serenity/markets",
        // A flat brand has no sub-workspace to hold a market's project.
        payload: { market: "US", languageCode: "en" },
        expected: { status: 400, code: "invalidRequest" },
      },
      {
        method: "GET",
        url: "/v2/serenity/models",
        path: "/v2/serenity/models",
        // No gateway is configured for this app: every upstream call fails before it is sent.
        expected: { status: 503, code: "configurationError" },
      },
      {
        method: "POST",
        url: `/v2/orgs/${orgId}/brands/${flatBrandId}/serenity/jobs/${randomUUID()}/reauth`,
        path: "/v2/orgs/:orgId/brands/:brandId/serenity/jobs/:jobId/reauth",
        expected: { status: 404, code: "notFound" },
      },
    ];
    const undeclared: string[] = [];
    t.events.on("http.undeclaredErrorCode", (event) => undeclared.push(`${event.route} ${event.code}`));
    for (const probe of probes) {
      const got = await answer(probe);
      const where = `${probe.method} ${probe.path}`;
      if (probe.expected.status < 400) {
        expect(got.status, where).toBe(probe.expected.status);
        continue;
      }
      expect(got, where).toEqual(probe.expected);
      expect(declaredCodes(probe.path, probe.method, got.status), `${where} ${got.status}`).toContain(
        got.code,
      );
    }
    expect(undeclared).toEqual([]);
  });
});
