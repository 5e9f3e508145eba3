import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestApp, type TestApp } from "../../support/testApp.ts";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let userA: string;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await createTestApp();
  admin = await t.token({ sub: "admin", admin: true });
  const create = async (name: string) =>
    (await t.app.inject({ method: "POST", url: "/v2/orgs", headers: auth(admin), payload: { name } })).json()
      .id as string;
  orgA = await create("A");
  orgB = await create("B");
  userA = await t.token({ sub: "user-a", orgs: [orgA] });
});
afterAll(() => t.close());

describe("brands in flat mode", () => {
  it("creates a pending flat brand and returns the Brand shape", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgA}/brands`,
      headers: auth(userA),
      payload: {
        name: "Lumiere",
        domain: "Lumiere-Skincare.example",
        primaryUrl: "https://lumiere-skincare.example/",
      },
    });
    expect(response.statusCode).toBe(201);
    const brand = response.json();
    expect(brand).toMatchObject({
      orgId: orgA,
      name: "Lumiere",
      domain: "lumiere-skincare.example",
      primaryUrl: "https://lumiere-skincare.example/",
      status: "pending",
      mode: "flat",
      subWorkspaceId: null,
      provisioning: { status: null, error: null, jobId: null },
    });
    expect(Date.parse(brand.createdAt)).not.toBeNaN();

    const list = await t.app.inject({ method: "GET", url: `/v2/orgs/${orgA}/brands`, headers: auth(userA) });
    expect(list.json().items.map((b: { id: string }) => b.id)).toContain(brand.id);
    const one = await t.app.inject({
      method: "GET",
      url: `/v2/orgs/${orgA}/brands/${brand.id}`,
      headers: auth(userA),
    });
    expect(one.json()).toEqual(brand);
  });

  it("answers 404 on every route of a foreign org, and for a brand of another org", async () => {
    const foreignBrand = (
      await t.app.inject({
        method: "POST",
        url: `/v2/orgs/${orgB}/brands`,
        headers: auth(admin),
        payload: { name: "B1" },
      })
    ).json().id as string;
    const probes = [
      { method: "GET", url: `/v2/orgs/${orgB}` },
      { method: "PATCH", url: `/v2/orgs/${orgB}`, payload: { name: "x" } },
      { method: "GET", url: `/v2/orgs/${orgB}/brands` },
      { method: "POST", url: `/v2/orgs/${orgB}/brands`, payload: { name: "x" } },
      { method: "GET", url: `/v2/orgs/${orgB}/brands/${foreignBrand}` },
      { method: "GET", url: `/v2/orgs/${orgA}/brands/${foreignBrand}` },
    ] as const;
    for (const probe of probes) {
      const response = await t.app.inject({ ...probe, headers: auth(userA) });
      expect(response.statusCode, `${probe.method} ${probe.url}`).toBe(404);
      expect(response.json().error).toBe("notFound");
    }
  });

  it("rejects `async` that is not a boolean with the spec's sentence", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${orgA}/brands`,
      headers: auth(userA),
      payload: { name: "X", async: "yes" },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: "invalidRequest", message: "async must be a boolean" });
  });

  it("a repeated deactivate answers as the first did (the README's safe-to-retry table)", async () => {
    const brand = (
      await t.app.inject({
        method: "POST",
        url: `/v2/orgs/${orgA}/brands`,
        headers: auth(userA),
        payload: { name: "Twice deactivated" },
      })
    ).json().id as string;
    const deactivate = () =>
      t.app.inject({
        method: "POST",
        url: `/v2/orgs/${orgA}/brands/${brand}/serenity/deactivate`,
        headers: auth(userA),
      });
    const first = await deactivate();
    const second = await deactivate();
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toEqual(first.json());
  });
});
