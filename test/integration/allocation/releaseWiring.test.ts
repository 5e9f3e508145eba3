import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brands } from "../../../src/db/schema.ts";
import type { Units } from "../../../src/domain/allocation.ts";
import { createGatewayClient } from "../../../src/gateway/index.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { catalogueLanguageId, startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { callRoute, createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * Release wiring with dynamic allocation on (spec/allocation.md §7), through the API against the
 * gold simulator: market delete, net model removal and prompt delete give surplus back down to the
 * floor {1 project, 100 prompts}; deactivate down to {1, 1}. Each release is one ledger row, and the
 * parent's totals grow by exactly what the sub-workspace gave back. Drafted units are counted.
 * Also: deactivate with the flag on in an org without a parent workspace fails loud before any
 * upstream call (the guard is built before the first upstream write).
 */

const PARENT = GOLD_PARENT_WORKSPACE_ID;
let sim: TestSimulator;
let t: TestApp;
let admin: string;
let token: string;
let orgId: string;
let brandId: string;
let subWorkspaceId: string;
const originalFlag = process.env.SERENITY_DYNAMIC_ALLOCATION;
const originalLag = process.env.SERENITY_PUBLISH_LAG_MS;

beforeAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  // This simulator's used never lags a publish, and these tests release right after one: a 1 ms
  // window keeps the deferral out of the wiring under test (publishLag.test.ts covers it).
  process.env.SERENITY_PUBLISH_LAG_MS = "1";
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  t = await createTestApp({ gateway: { url: sim.url, maxRetries: 0 } });
  admin = await t.token({ sub: "admin", admin: true });
  orgId = await createOrg(PARENT);
  token = await t.token({ sub: "user-1", orgs: [orgId] });
});
afterAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = originalFlag;
  if (originalLag === undefined) delete process.env.SERENITY_PUBLISH_LAG_MS;
  else process.env.SERENITY_PUBLISH_LAG_MS = originalLag;
  await t.close();
  await sim.close();
});

async function createOrg(parentWorkspaceId: string | null): Promise<string> {
  const org = await call("POST", "/v2/orgs", { name: "Release org", parentWorkspaceId }, admin);
  expect(org.status).toBe(201);
  return org.body.id as string;
}

const call = (method: string, url: string, body?: unknown, bearer = token) =>
  callRoute(t.app, { method, url, body, token: bearer });

async function usage(workspaceId: string): Promise<Units> {
  const { projects, prompts } = (await sim.dump()).workspaces.find((w) => w.id === workspaceId)!.resources;
  return { projects: projects.used + projects.drafted, prompts: prompts.used + prompts.drafted };
}

async function latestLedgerEntry() {
  const page = await call("GET", `/v2/orgs/${orgId}/serenity/allocation-ledger?brandId=${brandId}&limit=1`);
  expect(page.status).toBe(200);
  return page.body.items[0] as {
    reason: string;
    before: Units;
    after: Units;
    outcome: string;
    subWorkspaceId: string;
    errorCode: string | null;
  };
}

async function ledgerCount(): Promise<number> {
  const page = await call("GET", `/v2/orgs/${orgId}/serenity/allocation-ledger?brandId=${brandId}&limit=200`);
  return page.body.items.length as number;
}

const brandsUrl = () => `/v2/orgs/${orgId}/brands`;
const marketsUrl = () => `${brandsUrl()}/${brandId}/serenity/markets`;
const promptsUrl = () => `${brandsUrl()}/${brandId}/serenity/prompts`;

async function bulk(geoTargetId: number, languageCode: string, texts: string[]) {
  const answer = await call("POST", promptsUrl(), {
    items: texts.map((text) => ({ text, geoTargetId, languageCode })),
  });
  return answer;
}

const texts = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} ${i}`);

/**
 * Runs `operation` and checks the release it triggers: the sub-workspace ends at `after`, one new
 * ledger row says so, and the parent grew by exactly what was given back.
 */
async function expectRelease(
  operation: () => Promise<{ status: number }>,
  expected: { status: number; reason: string; before: Units; after: Units },
) {
  const parentBefore = await sim.totals(PARENT);
  const rowsBefore = await ledgerCount();
  expect(await sim.totals(subWorkspaceId)).toEqual(expected.before);
  expect((await operation()).status).toBe(expected.status);
  expect(await sim.totals(subWorkspaceId)).toEqual(expected.after);
  expect(await ledgerCount()).toBe(rowsBefore + 1);
  expect(await latestLedgerEntry()).toMatchObject({
    reason: expected.reason,
    before: expected.before,
    after: expected.after,
    outcome: "applied",
    subWorkspaceId,
    errorCode: null,
  });
  expect(await sim.totals(PARENT)).toEqual({
    projects: parentBefore.projects + expected.before.projects - expected.after.projects,
    prompts: parentBefore.prompts + expected.before.prompts - expected.after.prompts,
  });
}

describe("releases with the flag on (one brand's life)", () => {
  it("setup: a provisioned brand with two one-model markets and 230 prompt units (topped up to {2, 300})", async () => {
    const created = await call("POST", brandsUrl(), {
      name: "Releasing",
      domain: "releasing.example",
      semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
    });
    expect(created.status).toBe(201);
    brandId = created.body.id;
    subWorkspaceId = (await t.db.db.select().from(brands).where(eq(brands.id, brandId)))[0]!.subWorkspaceId!;
    const market = await call("POST", marketsUrl(), {
      market: "FR",
      languageCode: "fr",
      modelIds: ["search-gpt"],
    });
    expect(market.status).toBe(201);
    expect((await bulk(2250, "fr", texts("fr", 150))).status).toBe(201);
    expect((await bulk(2840, "en", texts("en", 80))).status).toBe(201);
    expect(await sim.totals(subWorkspaceId)).toEqual({ projects: 2, prompts: 300 });
    expect(await usage(subWorkspaceId)).toEqual({ projects: 2, prompts: 230 });
  });

  it("market delete: released to roundUpToBlock(used + drafted) above the floor {1, 100}", async () => {
    await expectRelease(() => call("DELETE", `${marketsUrl()}/2250/fr`), {
      status: 204,
      reason: "release",
      before: { projects: 2, prompts: 300 },
      after: { projects: 1, prompts: 100 },
    });
    expect(await usage(subWorkspaceId)).toEqual({ projects: 1, prompts: 80 });
  });

  it("net model removal: released down to the floor", async () => {
    // +2 models on 80 texts: 240 units, a top-up to 300.
    const added = await call("PUT", `${marketsUrl()}/2840/en/models`, {
      modelIds: ["search-gpt", "perplexity", "gpt-5"],
    });
    expect(added.status).toBe(200);
    await expectRelease(() => call("PUT", `${marketsUrl()}/2840/en/models`, { modelIds: ["search-gpt"] }), {
      status: 200,
      reason: "release",
      before: { projects: 1, prompts: 300 },
      after: { projects: 1, prompts: 100 },
    });
  });

  it("a model swap (one removed, one added) is no net removal: nothing released", async () => {
    const rowsBefore = await ledgerCount();
    const swapped = await call("PUT", `${marketsUrl()}/2840/en/models`, { modelIds: ["perplexity"] });
    expect(swapped.status).toBe(200);
    expect(await sim.totals(subWorkspaceId)).toEqual({ projects: 1, prompts: 100 });
    expect(await ledgerCount()).toBe(rowsBefore);
  });

  it("prompt delete: released to what the remaining texts need, never under the floor", async () => {
    expect((await bulk(2840, "en", texts("more", 150))).status).toBe(201);
    expect(await sim.totals(subWorkspaceId)).toEqual({ projects: 1, prompts: 300 });
    const page = await call(
      "GET",
      `${promptsUrl()}?geoTargetId=2840&languageCode=en&limit=200&includeDrafts=true`,
    );
    const ids = (page.body.items as { id: string }[]).slice(0, 120).map((prompt) => prompt.id);
    await expectRelease(() => call("DELETE", promptsUrl(), { geoTargetId: 2840, languageCode: "en", ids }), {
      status: 204,
      reason: "release",
      before: { projects: 1, prompts: 300 },
      after: { projects: 1, prompts: 200 },
    });
    expect(await usage(subWorkspaceId)).toEqual({ projects: 1, prompts: 110 });
  });

  it("drafted units count: a release while texts are only staged keeps room for them", async () => {
    // A second market; then 150 texts staged in US whose publish fails, so they stay drafted.
    expect(
      (await call("POST", marketsUrl(), { market: "DE", languageCode: "de", modelIds: ["search-gpt"] }))
        .status,
    ).toBe(201);
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/publish$" },
      action: { status: 500, body: { message: "boom" } },
      times: 1,
    });
    const staged = await bulk(2840, "en", texts("staged", 150));
    expect(staged.status).toBe(207);
    const resources = (await sim.dump()).workspaces.find((w) => w.id === subWorkspaceId)!.resources;
    expect(resources.prompts.drafted).toBe(150);
    // 110 used + 150 drafted = 260: the release after the DE delete keeps 300 prompts, not 100
    // (a release ignoring drafted would make the next publish of those texts fail).
    await expectRelease(() => call("DELETE", `${marketsUrl()}/2276/de`), {
      status: 204,
      reason: "release",
      before: { projects: 2, prompts: 300 },
      after: { projects: 1, prompts: 300 },
    });
  });

  it("deactivate: projects deleted, then released to the minimum expressible {1, 1}", async () => {
    await expectRelease(() => call("POST", `${brandsUrl()}/${brandId}/serenity/deactivate`), {
      status: 200,
      reason: "deactivate",
      before: { projects: 1, prompts: 300 },
      after: { projects: 1, prompts: 1 },
    });
    expect(await usage(subWorkspaceId)).toEqual({ projects: 0, prompts: 0 });
  });
});

describe("the pool view after a deactivation (spec/allocation.md §7)", () => {
  it("shows the deactivated brand's sub-workspace under unattached at the floor {1, 1}, so the view still adds up to the pool", async () => {
    const view = await call("GET", `/v2/orgs/${orgId}/serenity/resources`);
    expect(view.status).toBe(200);
    const body = view.body as {
      pool: { projects: { total: number }; prompts: { total: number } };
      brands: { brandId: string; projects: { total: number }; prompts: { total: number } }[];
      unattached: {
        subWorkspaceId: string;
        brandId: string | null;
        projects: { total: number; used: number; drafted: number };
        prompts: { total: number };
      }[];
    };
    expect(body.brands.map((brand) => brand.brandId)).not.toContain(brandId);
    expect(body.unattached).toContainEqual(
      expect.objectContaining({
        subWorkspaceId,
        brandId,
        projects: expect.objectContaining({ total: 1, used: 0, drafted: 0 }),
        prompts: expect.objectContaining({ total: 1 }),
      }),
    );
    // What the view shows is the whole pool, as the simulator keeps it (13 / 800 for gold).
    const sum = (dimension: "projects" | "prompts") =>
      body.pool[dimension].total +
      body.brands.reduce((total, brand) => total + brand[dimension].total, 0) +
      body.unattached.reduce((total, child) => total + child[dimension].total, 0);
    const dump = await sim.dump();
    const children = dump.workspaces.filter((workspace) => workspace.parent_id === PARENT);
    const parent = dump.workspaces.find((workspace) => workspace.id === PARENT)!;
    expect(sum("projects")).toBe(
      parent.resources.projects.total + children.reduce((n, w) => n + w.resources.projects.total, 0),
    );
    expect(sum("prompts")).toBe(
      parent.resources.prompts.total + children.reduce((n, w) => n + w.resources.prompts.total, 0),
    );
    expect({ projects: sum("projects"), prompts: sum("prompts") }).toEqual({ projects: 13, prompts: 800 });
  });
});

describe("deactivate with the flag on and a misconfigured org", () => {
  it("fails allocationMisconfigured (500) before any upstream call, leaving the projects in place", async () => {
    // A brand with a sub-workspace (and a project in it) in an org that has no parent workspace.
    const lonelyOrg = await createOrg(null);
    const client = createGatewayClient({
      projectsBaseUrl: sim.url,
      usersBaseUrl: sim.url,
      events: new EventBus(),
      logger: createLogger({ level: "silent" }),
    });
    const ws = (
      await client.users.createSubWorkspace(admin, PARENT, { title: "orphan", resources: { projects: 1 } })
    ).id;
    await client.projects.createProject(admin, ws, {
      name: "p",
      brandNameDisplay: "B",
      brandNames: ["B"],
      domain: "b.example",
      countryCode: "US",
      locationId: 2840,
      locationName: "United States",
      languageId: catalogueLanguageId("en"),
    });
    await client.close();
    const flat = await call("POST", `/v2/orgs/${lonelyOrg}/brands`, { name: "Orphan" }, admin);
    await t.db.db
      .update(brands)
      .set({ subWorkspaceId: ws, provisioningStatus: "ready", status: "active" })
      .where(eq(brands.id, flat.body.id));
    await sim.clearCalls();

    const answer = await call(
      "POST",
      `/v2/orgs/${lonelyOrg}/brands/${flat.body.id}/serenity/deactivate`,
      undefined,
      admin,
    );
    expect(answer.status).toBe(500);
    expect(answer.body.error).toBe("allocationMisconfigured");
    expect(await sim.calls()).toEqual([]);
    expect([...sim.simulator.store.projects.values()].filter((p) => p.workspaceId === ws)).toHaveLength(1);
  });
});
