import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** `Idempotency-Key` on the creates, and brand names unique per org, through the HTTP edge. */
let t: TestApp;
let admin: string;
let orgId: string;
let user: string;
let other: string;

const headers = (token: string, key?: string) => ({
  authorization: `Bearer ${token}`,
  ...(key === undefined ? {} : { "idempotency-key": key }),
});

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.token({ sub: "admin", admin: true });
  orgId = (
    await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: headers(admin),
      payload: { name: "Idem" },
    })
  ).json().id as string;
  user = await t.token({ sub: "user-idem", orgs: [orgId] });
  other = await t.token({ sub: "user-other", orgs: [orgId] });
});
afterAll(() => t.close());

async function brandsNamed(name: string): Promise<number> {
  const result = await t.db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from brands where org_id = ${orgId} and lower(name) = lower(${name})`,
  );
  return result.rows[0]!.n;
}

function createBrand(token: string, body: object, key?: string) {
  return t.app.inject({
    method: "POST",
    url: `/v2/orgs/${orgId}/brands`,
    headers: headers(token, key),
    payload: body,
  });
}

describe("Idempotency-Key on creates", () => {
  it("a replay re-checks access: a caller who lost the org gets 404, not the stored answer", async () => {
    const first = await createBrand(user, { name: "Kept" }, "access-1");
    expect(first.statusCode).toBe(201);
    const withoutOrg = await t.token({ sub: "user-idem", orgs: [] });
    const replay = await createBrand(withoutOrg, { name: "Kept" }, "access-1");
    expect(replay.statusCode).toBe(404);
    expect(replay.json().code).toBe("notFound");
    expect(replay.body).not.toContain(first.json().id as string);
  });

  it("a repeat with the same key and body answers the first answer and creates nothing", async () => {
    const first = await createBrand(user, { name: "Twin", domain: "twin.example" }, "retry-1");
    expect(first.statusCode).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    const again = await createBrand(user, { domain: "twin.example", name: "Twin" }, "retry-1");
    expect(again.statusCode).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.json()).toEqual(first.json());
    expect(await brandsNamed("Twin")).toBe(1);
  });

  it("concurrent repeats create one brand and all answer it", async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        createBrand(user, { name: "Quint", domain: "quint.example" }, "burst-1"),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((answer) => answer.json().id)).size).toBe(1);
    expect(await brandsNamed("Quint")).toBe(1);
  });

  it("the same key with another body is 422 idempotencyKeyReused", async () => {
    await createBrand(user, { name: "Key Owner", domain: "owner.example" }, "reuse-1");
    const reused = await createBrand(user, { name: "Someone Else", domain: "else.example" }, "reuse-1");
    expect(reused.statusCode).toBe(422);
    expect(reused.json().error).toBe("idempotencyKeyReused");
    expect(await brandsNamed("Someone Else")).toBe(0);
  });

  it("a key is the caller's own: another caller's same key runs its own request", async () => {
    await createBrand(user, { name: "Mine", domain: "mine.example" }, "shared-key");
    const theirs = await createBrand(other, { name: "Theirs", domain: "theirs.example" }, "shared-key");
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().name).toBe("Theirs");
  });

  it("a malformed key is 400 and runs nothing", async () => {
    const bad = await createBrand(user, { name: "Bad Key", domain: "bad.example" }, "x".repeat(256));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe("invalidRequest");
    expect(await brandsNamed("Bad Key")).toBe(0);
  });

  it("org creation honours the key too (no org in the path)", async () => {
    const body = { name: "Idem Twin Org" };
    const first = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: headers(admin, "org-1"),
      payload: body,
    });
    const again = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: headers(admin, "org-1"),
      payload: body,
    });
    expect(first.statusCode).toBe(201);
    expect(again.json().id).toBe(first.json().id);
    const orgs = await t.db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from orgs where name = 'Idem Twin Org'`,
    );
    expect(orgs.rows[0]!.n).toBe(1);
  });

  it("the OpenAPI document shows the header on every create", async () => {
    const document = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
    for (const path of [
      "/v2/orgs",
      "/v2/orgs/{orgId}/brands",
      "/v2/orgs/{orgId}/brands/{brandId}/serenity/markets",
      "/v2/orgs/{orgId}/brands/{brandId}/serenity/prompts",
      "/v2/orgs/{orgId}/brands/{brandId}/serenity/activate",
    ]) {
      const names = (document.paths[path].post.parameters ?? []).map((p: { name: string }) => p.name);
      expect(names, path).toContain("idempotency-key");
    }
  });
});

describe("brand names without a key", () => {
  it("a second brand of one name (any case) is 409 brandExists", async () => {
    expect((await createBrand(user, { name: "Lumen", domain: "lumen.example" })).statusCode).toBe(201);
    const twin = await createBrand(user, { name: "LUMEN", domain: "lumen.example" });
    expect(twin.statusCode).toBe(409);
    expect(twin.json().error).toBe("brandExists");
    expect(await brandsNamed("Lumen")).toBe(1);
  });
});
