import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brands } from "../../../src/db/schema.ts";
import { createGatewayClient } from "../../../src/gateway/index.ts";
import { meteredWriteGuardFor, resolveWriteTarget } from "../../../src/markets/writeTarget.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** `GET …/serenity/resources` and `GET …/serenity/allocation-ledger` over the API, against the simulator. */

let sim: TestSimulator;
let t: TestApp;
let admin: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  t = await createTestApp({ gateway: { url: sim.url } });
  admin = await t.token({ sub: "admin-1", admin: true });
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

/** An org on a pool of its own (13 / 800, metered) with brands carved as given. */
async function orgWithBrands(carves: { projects: number; prompts: number }[]) {
  const parentWorkspaceId = await sim.addParent();
  const created = await t.app.inject({
    method: "POST",
    url: "/v2/orgs",
    headers: auth(admin),
    payload: { name: `Org ${Math.random()}`, parentWorkspaceId },
  });
  const org = created.json() as { id: string };
  const client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
  });
  const brandIds: string[] = [];
  const workspaceIds: string[] = [];
  for (const [index, carve] of carves.entries()) {
    const workspace = await client.users.createSubWorkspace(admin, parentWorkspaceId, {
      title: `brand-${org.id}-${index}`,
      resources: carve,
    });
    const brand = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${org.id}/brands`,
      headers: auth(admin),
      payload: { name: `Brand ${index}` },
    });
    const brandId = (brand.json() as { id: string }).id;
    await t.db.db
      .update(brands)
      .set({ subWorkspaceId: workspace.id, provisioningStatus: "ready", status: "active" })
      .where(eq(brands.id, brandId));
    brandIds.push(brandId);
    workspaceIds.push(workspace.id);
  }
  await client.close();
  return { orgId: org.id, parentWorkspaceId, brandIds, workspaceIds };
}

describe("GET /v2/orgs/:orgId/serenity/resources", () => {
  it("shows the pool and every brand with free and stranded units; members of other orgs get 404", async () => {
    const { orgId, brandIds, workspaceIds } = await orgWithBrands([
      { projects: 2, prompts: 300 },
      { projects: 1, prompts: 100 },
    ]);
    const before = { projects: { total: 13 }, prompts: { total: 800 } };
    await sim.control("/quota", {
      workspaceId: workspaceIds[0],
      prompts: { used: 50, drafted: 20, total: 300 },
    });
    const response = await t.app.inject({
      method: "GET",
      url: `/v2/orgs/${orgId}/serenity/resources`,
      headers: auth(admin),
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.pool).toEqual({
      projects: { used: 0, drafted: 0, total: before.projects.total - 3, free: before.projects.total - 3 },
      prompts: { used: 0, drafted: 0, total: before.prompts.total - 400, free: before.prompts.total - 400 },
      asOf: expect.any(String),
    });
    expect(body.brands).toEqual([
      {
        brandId: brandIds[0],
        name: "Brand 0",
        subWorkspaceId: workspaceIds[0],
        projects: { used: 0, drafted: 0, total: 2, free: 2 },
        prompts: { used: 50, drafted: 20, total: 300, free: 230 },
        stranded: { projects: 2, prompts: 200 },
        asOf: expect.any(String),
      },
      {
        brandId: brandIds[1],
        name: "Brand 1",
        subWorkspaceId: workspaceIds[1],
        projects: { used: 0, drafted: 0, total: 1, free: 1 },
        prompts: { used: 0, drafted: 0, total: 100, free: 100 },
        stranded: { projects: 1, prompts: 100 },
        asOf: expect.any(String),
      },
    ]);
    expect(typeof body.dynamicAllocation).toBe("boolean");

    const outsider = await t.token({ sub: "outsider", orgs: [] });
    const denied = await t.app.inject({
      method: "GET",
      url: `/v2/orgs/${orgId}/serenity/resources`,
      headers: auth(outsider),
    });
    expect(denied.statusCode).toBe(404);
  });

  it("answers from the resources record: a second view makes no upstream call", async () => {
    const { orgId } = await orgWithBrands([{ projects: 1, prompts: 100 }]);
    const url = `/v2/orgs/${orgId}/serenity/resources`;
    expect((await t.app.inject({ method: "GET", url, headers: auth(admin) })).statusCode).toBe(200);
    await sim.clearCalls();
    expect((await t.app.inject({ method: "GET", url, headers: auth(admin) })).statusCode).toBe(200);
    expect((await sim.calls()).filter((call) => !call.path.startsWith("/__sim"))).toEqual([]);
  });
});

describe("GET /v2/orgs/:orgId/serenity/allocation-ledger", () => {
  it("lists transfer attempts newest first, filtered by brand, paged by `before`", async () => {
    const { orgId, parentWorkspaceId, brandIds } = await orgWithBrands([
      { projects: 0, prompts: 0 },
      { projects: 0, prompts: 0 },
    ]);
    const org = { id: orgId, parentWorkspaceId, metering: { state: "metered" as const, asOf: new Date() } };
    const previous = process.env.SERENITY_DYNAMIC_ALLOCATION;
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    try {
      for (const [index, brandId] of brandIds.entries()) {
        const [brand] = await t.db.db.select().from(brands).where(eq(brands.id, brandId));
        // The guard a market write of this brand gets; two sections with nothing written top
        // the sub-workspace up twice (to 1 project, then to 2).
        const guard = meteredWriteGuardFor(
          t.services.allocation.meteredWrites,
          resolveWriteTarget(brand!, org),
          {
            orgId,
            brandId,
            operation: { requestId: `req-${index}`, bearer: admin },
          },
        );
        await guard.section({ projects: 1 }, async () => undefined);
        await guard.section({ projects: 2 }, async () => undefined);
      }
    } finally {
      if (previous === undefined) delete process.env.SERENITY_DYNAMIC_ALLOCATION;
      else process.env.SERENITY_DYNAMIC_ALLOCATION = previous;
    }

    const url = `/v2/orgs/${orgId}/serenity/allocation-ledger`;
    const all = await t.app.inject({ method: "GET", url, headers: auth(admin) });
    expect(all.statusCode).toBe(200);
    const items = all.json().items as { id: number; brandId: string; after: unknown; reason: string }[];
    expect(items.map((item) => [item.brandId, item.after])).toEqual([
      [brandIds[1], { projects: 2, prompts: 0 }],
      [brandIds[1], { projects: 1, prompts: 0 }],
      [brandIds[0], { projects: 2, prompts: 0 }],
      [brandIds[0], { projects: 1, prompts: 0 }],
    ]);
    expect(items.every((item) => item.reason === "topUp")).toBe(true);

    const firstPage = await t.app.inject({
      method: "GET",
      url: `${url}?brandId=${brandIds[0]}&limit=1`,
      headers: auth(admin),
    });
    expect(firstPage.json()).toMatchObject({ items: [{ after: { projects: 2, prompts: 0 } }] });
    const nextBefore = firstPage.json().nextBefore as number;
    const secondPage = await t.app.inject({
      method: "GET",
      url: `${url}?brandId=${brandIds[0]}&limit=1&before=${nextBefore}`,
      headers: auth(admin),
    });
    expect(secondPage.json()).toMatchObject({ items: [{ after: { projects: 1, prompts: 0 } }] });

    const bad = await t.app.inject({ method: "GET", url: `${url}?limit=0`, headers: auth(admin) });
    expect(bad.statusCode).toBe(400);
  });
});
