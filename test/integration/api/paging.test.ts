import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ManualClock } from "../../support/manualClock.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** One paging convention on every list (ADR 0037): `limit` + opaque `cursor`, `{items, nextCursor}`. */
let t: TestApp;
let admin: string;
// Lists are in creation order: each create is a millisecond after the one before, so no two tie
// however fast the machine (a tie would fall back to the ids' order, which is random).
const clock = new ManualClock();
let orgId: string;

const get = (url: string) =>
  t.app.inject({ method: "GET", url, headers: { authorization: `Bearer ${admin}` } });

async function walk(path: string, limit: number): Promise<{ pages: number; names: string[] }> {
  const names: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
    const response = await get(`${path}?${query}`);
    expect(response.statusCode, query).toBe(200);
    const body = response.json() as { items: { name: string }[]; nextCursor: string | null };
    expect(body.items.length).toBeLessThanOrEqual(limit);
    names.push(...body.items.map((item) => item.name));
    cursor = body.nextCursor;
    pages += 1;
  } while (cursor);
  return { pages, names };
}

beforeAll(async () => {
  t = await createTestApp({ clock });
  admin = await t.token({ sub: "admin-paging", admin: true });
  for (const name of ["Org A", "Org B", "Org C", "Org D", "Org E"]) {
    clock.advance(1);
    const created = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${admin}` },
      payload: { name },
    });
    orgId = created.json().id as string;
  }
  for (const name of ["Brand 1", "Brand 2", "Brand 3"]) {
    clock.advance(1);
    await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgId}/brands`,
      headers: { authorization: `Bearer ${admin}` },
      payload: { name },
    });
  }
});
afterAll(() => t.close());

describe("paging", () => {
  it("pages orgs and brands with limit and cursor: every item once, in creation order", async () => {
    const orgs = await walk("/v2/orgs", 2);
    expect(orgs.pages).toBe(3);
    expect(orgs.names).toEqual(["Org A", "Org B", "Org C", "Org D", "Org E"]);
    const brands = await walk(`/v2/orgs/${orgId}/brands`, 2);
    expect(brands).toEqual({ pages: 2, names: ["Brand 1", "Brand 2", "Brand 3"] });
  });

  it("keeps its place when an item before the cursor is added meanwhile", async () => {
    const first = (await get("/v2/orgs?limit=2")).json() as { nextCursor: string };
    clock.advance(1);
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: "Org F" },
    });
    const rest = (await get(`/v2/orgs?limit=10&cursor=${first.nextCursor}`)).json();
    expect(rest.items.map((org: { name: string }) => org.name)).toEqual(["Org C", "Org D", "Org E", "Org F"]);
    expect(rest.nextCursor).toBeNull();
  });

  it("answers the whole list (up to 200) to a client that does not page", async () => {
    const all = (await get(`/v2/orgs/${orgId}/brands`)).json();
    expect(all.items).toHaveLength(3);
    expect(all.nextCursor).toBeNull();
  });

  it("enforces exactly the limit bounds it documents, and refuses a cursor it did not give out", async () => {
    for (const limit of ["0", "201", "999", "1.5", "-1"]) {
      const response = await get(`/v2/orgs?limit=${limit}`);
      expect(response.statusCode, limit).toBe(400);
      expect(response.json().errors, limit).toEqual([
        expect.objectContaining({ in: "querystring", pointer: "/limit" }),
      ]);
    }
    expect((await get("/v2/orgs?limit=200")).statusCode).toBe(200);
    expect((await get("/v2/orgs?limit=1")).statusCode).toBe(200);
    for (const cursor of ["bm90LWpzb24", "eyJ4IjoxfQ", "!!"]) {
      const response = await get(`/v2/orgs?cursor=${cursor}`);
      expect(response.statusCode, cursor).toBe(400);
      expect(response.json().code).toBe("invalidRequest");
    }
  });

  it("documents the same pattern it enforces", async () => {
    const document = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const limits: string[] = [];
    for (const [path, item] of Object.entries(
      document.paths as Record<
        string,
        Record<string, { parameters?: { name: string; in: string; schema: { pattern?: string } }[] }>
      >,
    )) {
      for (const operation of Object.values(item)) {
        const limit = operation.parameters?.find(
          (parameter) => parameter.in === "query" && parameter.name === "limit",
        );
        if (limit && !path.includes("pool-history")) limits.push(limit.schema.pattern ?? "none");
      }
    }
    expect(limits.length).toBeGreaterThanOrEqual(6);
    expect(new Set(limits)).toEqual(new Set(["^(?:[1-9]|[1-9]\\d|1\\d\\d|200)$"]));
  });
});
