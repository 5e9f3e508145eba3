import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.token({ sub: "admin-1", admin: true });
});
afterAll(() => t.close());

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function createOrg(name: string, parentWorkspaceId: string | null = null) {
  const response = await t.app.inject({
    method: "POST",
    url: "/v2/orgs",
    headers: auth(admin),
    payload: { name, parentWorkspaceId },
  });
  expect(response.statusCode).toBe(201);
  return response.json() as { id: string; name: string; parentWorkspaceId: string | null };
}

describe("orgs", () => {
  it("an admin creates, reads and updates an org", async () => {
    const org = await createOrg("Acme", "ws-parent-1");
    expect(org).toMatchObject({ name: "Acme", parentWorkspaceId: "ws-parent-1" });

    const fetched = await t.app.inject({ method: "GET", url: `/v2/orgs/${org.id}`, headers: auth(admin) });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(org);

    const patched = await t.app.inject({
      method: "PATCH",
      url: `/v2/orgs/${org.id}`,
      headers: auth(admin),
      payload: { name: "Acme Corp", parentWorkspaceId: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: org.id, name: "Acme Corp", parentWorkspaceId: null });
  });

  it("a member lists only the orgs of the token", async () => {
    const mine = await createOrg("Mine");
    await createOrg("Theirs");
    const member = await t.token({ sub: "member-1", orgs: [mine.id] });
    const response = await t.app.inject({ method: "GET", url: "/v2/orgs", headers: auth(member) });
    expect(response.statusCode).toBe(200);
    expect((response.json() as { items: { id: string }[] }).items.map((org) => org.id)).toEqual([mine.id]);
  });

  it("a non-admin cannot create (403) and cannot tell whether a foreign org exists (404)", async () => {
    const foreign = await createOrg("Foreign");
    const member = await t.token({ sub: "member-2", orgs: [] });
    const create = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(member),
      payload: { name: "X" },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json()).toMatchObject({ error: "forbidden" });

    const existing = await t.app.inject({
      method: "GET",
      url: `/v2/orgs/${foreign.id}`,
      headers: auth(member),
    });
    const missing = await t.app.inject({
      method: "GET",
      url: "/v2/orgs/00000000-0000-4000-8000-000000000000",
      headers: auth(member),
    });
    expect(existing.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    const strip = (body: Record<string, unknown>) => ({ ...body, requestId: undefined, instance: undefined });
    expect(strip(existing.json())).toEqual(strip(missing.json()));

    const patch = await t.app.inject({
      method: "PATCH",
      url: `/v2/orgs/${foreign.id}`,
      headers: auth(member),
      payload: { name: "Y" },
    });
    expect(patch.statusCode).toBe(404);
  });

  it("a member of the org may read it but not patch it (403)", async () => {
    const org = await createOrg("Readable");
    const member = await t.token({ sub: "member-3", orgs: [org.id] });
    expect(
      (await t.app.inject({ method: "GET", url: `/v2/orgs/${org.id}`, headers: auth(member) })).statusCode,
    ).toBe(200);
    const patch = await t.app.inject({
      method: "PATCH",
      url: `/v2/orgs/${org.id}`,
      headers: auth(member),
      payload: { name: "Z" },
    });
    expect(patch.statusCode).toBe(403);
  });

  it("a parent workspace is the pool of one org: a second org on it is 409 parentWorkspaceInUse", async () => {
    const first = await createOrg("Pool owner", "ws-shared-pool");
    const second = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: auth(admin),
      payload: { name: "Pool squatter", parentWorkspaceId: "ws-shared-pool" },
    });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({
      error: "parentWorkspaceInUse",
      message: "This Semrush workspace is already another organization's pool.",
    });
    expect(JSON.stringify(second.json())).not.toContain("ws-shared-pool");

    // Moving another org onto it is refused the same way; moving the owner onto its own is fine.
    const other = await createOrg("Other", "ws-other-pool");
    const move = await t.app.inject({
      method: "PATCH",
      url: `/v2/orgs/${other.id}`,
      headers: auth(admin),
      payload: { parentWorkspaceId: "ws-shared-pool" },
    });
    expect(move.statusCode).toBe(409);
    expect(move.json().error).toBe("parentWorkspaceInUse");
    const same = await t.app.inject({
      method: "PATCH",
      url: `/v2/orgs/${first.id}`,
      headers: auth(admin),
      payload: { name: "Pool owner, renamed", parentWorkspaceId: "ws-shared-pool" },
    });
    expect(same.statusCode).toBe(200);
    // Orgs without a pool are not limited: any number may have none.
    await createOrg("No pool 1");
    await createOrg("No pool 2");
  });

  it("ensureForParentWorkspace racing itself yields one org", async () => {
    const orgs = await Promise.all(
      Array.from({ length: 6 }, () => t.services.orgs.ensureForParentWorkspace("Demo", "ws-demo-race")),
    );
    expect(new Set(orgs.map((org) => org.id)).size).toBe(1);
  });
});
