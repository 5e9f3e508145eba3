import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import type { MeteredWriteGuardFactory } from "../../../src/domain/meteredWrites.ts";
import type { Call } from "../../../src/simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID, UNMETERED_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The choke point (spec/allocation.md §5): with dynamic allocation on and a brand's sub-workspace
 * without headroom (zero allocation when fresh), every API operation that writes upstream is driven
 * in turn, and the simulator's call log must show EVERY metered call preceded — since the previous
 * metered call — by a resources read of the workspace it writes into. "Metered" is decided
 * generically: any upstream write that is not on the short list of known unmetered writes below, so
 * a new write endpoint or a new call site without the guard fails this test.
 *
 * Kill switch (§2): the same drive with the flag off makes zero resources reads and zero transfers.
 *
 * Jobs: when this test was written no job handler performing metered writes was committed (async
 * provisioning is in progress in src/provisioning/** and src/jobs/handlers/**); the handlers reach
 * upstream through MarketService.createForBrand, the same seam the synchronous paths drive here.
 */

const PE = "/enterprise/projects/api";
const UM = "/enterprise/users/api";

/** Upstream writes that consume no metered unit, each with why. Everything else that writes is metered. */
const UNMETERED_WRITES: { method: string; pattern: RegExp; why: string }[] = [
  {
    method: "POST",
    pattern: /^\/enterprise\/users\/api\/v2\/workspaces\/[^/]+\/child$/,
    why: "sub-workspace create (no AI units)",
  },
  { method: "DELETE", pattern: /^\/enterprise\/users\/api\/v1\/workspaces\/[^/]+$/, why: "workspace delete" },
  {
    method: "POST",
    pattern: /^\/enterprise\/users\/api\/v2\/workspaces\/[^/]+\/resources\/transfer$/,
    why: "the transfer itself",
  },
  {
    method: "PATCH",
    pattern: /^\/enterprise\/projects\/api\/v1\/workspaces\/[^/]+\/projects\/[^/]+$/,
    why: "primary_url",
  },
  {
    method: "DELETE",
    pattern: /^\/enterprise\/projects\/api\/v1\/workspaces\/[^/]+\/projects\/[^/]+$/,
    why: "project delete frees units",
  },
  { method: "DELETE", pattern: /\/ai_models$/, why: "model removal frees units" },
  { method: "DELETE", pattern: /\/aio\/prompts$/, why: "prompt delete frees units" },
  { method: "PUT", pattern: /\/aio\/prompts\/tags$/, why: "retagging" },
  { method: "POST", pattern: /\/aio\/tags$/, why: "tag create" },
  { method: "POST", pattern: /\/aio\/prompts\/by_tags$/, why: "a read sent as POST" },
];

type MeteredKind = "projectCreate" | "promptCreate" | "modelAdd" | "publish" | "unknown";

function meteredKind(call: Call): MeteredKind | undefined {
  if (call.method === "GET" || call.path.startsWith("/__sim")) return undefined;
  if (UNMETERED_WRITES.some((w) => w.method === call.method && w.pattern.test(call.path))) return undefined;
  if (/\/v1\/workspaces\/[^/]+\/projects$/.test(call.path)) return "projectCreate";
  if (/\/v3\/workspaces\/[^/]+\/projects\/[^/]+\/aio\/prompts$/.test(call.path)) return "promptCreate";
  if (/\/v2\/workspaces\/[^/]+\/projects\/[^/]+\/ai_models$/.test(call.path)) return "modelAdd";
  if (/\/projects\/[^/]+\/publish$/.test(call.path)) return "publish";
  return "unknown"; // a write nobody classified: treated as metered, so it must be guarded
}

function workspaceOf(path: string): string {
  const match = /\/workspaces\/([^/]+)/.exec(path);
  if (!match) throw new Error(`no workspace in ${path}`);
  return match[1]!;
}

const isResourcesRead = (call: Call) =>
  call.method === "GET" && /^\/enterprise\/users\/api\/v1\/workspaces\/[^/]+\/resources$/.test(call.path);
const isTransfer = (call: Call) => call.method === "POST" && call.path.endsWith("/resources/transfer");

/** Every metered call whose workspace was not read since the previous metered call. */
function unguardedMeteredCalls(calls: readonly Call[]): string[] {
  const unguarded: string[] = [];
  let readSince = new Set<string>();
  for (const call of calls) {
    if (isResourcesRead(call)) {
      readSince.add(workspaceOf(call.path));
      continue;
    }
    if (meteredKind(call) === undefined) continue;
    if (!readSince.has(workspaceOf(call.path))) unguarded.push(`${call.method} ${call.path}`);
    readSince = new Set();
  }
  return unguarded;
}

interface World {
  sim: TestSimulator;
  t: TestApp;
  parent: string;
  token: string;
  orgId: string;
}

let gold: World;
let unmetered: World;
const originalFlag = process.env.SERENITY_DYNAMIC_ALLOCATION;

async function startWorld(
  seed: "gold" | "unmetered",
  parent: string,
  meteredWrites?: MeteredWriteGuardFactory,
): Promise<World> {
  const sim = await startTestSimulator({ seed, settings: { settleReads: 0 } });
  const t = await createTestApp({ gateway: { url: sim.url, maxRetries: 0 }, meteredWrites });
  const admin = await t.token({ sub: "admin", admin: true });
  const org = await t.app.inject({
    method: "POST",
    url: "/v2/orgs",
    headers: { authorization: `Bearer ${admin}` },
    payload: { name: `Choke point ${seed}`, parentWorkspaceId: parent },
  });
  expect(org.statusCode).toBe(201);
  const orgId = org.json().id as string;
  return { sim, t, parent, orgId, token: await t.token({ sub: "user-1", orgs: [orgId] }) };
}

beforeAll(async () => {
  [gold, unmetered] = await Promise.all([
    startWorld("gold", GOLD_PARENT_WORKSPACE_ID),
    startWorld("unmetered", UNMETERED_PARENT_WORKSPACE_ID),
  ]);
});
afterEach(() => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = originalFlag;
});
afterAll(async () => {
  for (const world of [gold, unmetered]) {
    await world?.t.close();
    await world?.sim.close();
  }
});

async function call(world: World, method: string, url: string, body?: unknown) {
  const response = await world.t.app.inject({
    method: method as "GET",
    url,
    headers: { authorization: `Bearer ${world.token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

/** Takes every unit of headroom away from the org's sub-workspaces: total = used + drafted. */
async function squeeze(world: World): Promise<void> {
  const dump = await world.sim.dump();
  for (const workspace of dump.workspaces.filter((w) => w.parent_id === world.parent)) {
    const { projects, prompts } = workspace.resources;
    await world.sim.control("/quota", {
      workspaceId: workspace.id,
      projects: projects.used + projects.drafted,
      prompts: prompts.used + prompts.drafted,
    });
  }
}

/**
 * Every API operation that writes upstream, one after the other (so the call log's order is the
 * operations' order), each started with zero headroom; then the unmetered writes that release.
 * Returns the operations' statuses.
 */
async function drive(world: World): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  const base = `/v2/orgs/${world.orgId}/brands`;
  const step = async (name: string, method: string, url: string, body?: unknown) => {
    await squeeze(world);
    const answer = await call(world, method, url, body);
    statuses[name] = answer.status;
    return answer;
  };

  // Create brand with semrushMarket (sync): a fresh sub-workspace (zero allocation) and its market.
  const created = await step("createBrandWithMarket", "POST", base, {
    name: "Provisioned",
    domain: "provisioned.example",
    semrushMarket: { market: "US", languageCode: "en" },
  });
  const brandId = created.body.id as string;
  await step("createMarket", "POST", `${base}/${brandId}/serenity/markets`, {
    market: "FR",
    languageCode: "fr",
  });
  // Bulk prompts into two markets (two projects, one guarded write each), one tag set per project.
  await step("bulkPrompts", "POST", `${base}/${brandId}/serenity/prompts`, {
    items: [
      { text: "best running shoes", geoTargetId: 2840, languageCode: "en" },
      { text: "running shoes for flat feet", geoTargetId: 2840, languageCode: "en" },
      { text: "meilleures chaussures de course", geoTargetId: 2250, languageCode: "fr" },
    ],
  });
  await step("replaceModelsAdding", "PUT", `${base}/${brandId}/serenity/markets/2840/en/models`, {
    modelIds: ["search-gpt", "google-ai-overview", "perplexity", "gpt-5"],
  });
  // Activate a flat brand with markets: provisions its sub-workspace, then creates the market.
  const flat = await call(world, "POST", base, { name: "Flat then active", domain: "flat.example" });
  await step("activateProvisioning", "POST", `${base}/${flat.body.id}/serenity/activate`, {
    markets: [{ market: "DE", languageCode: "de" }],
  });
  // Activate a brand that has its sub-workspace: markets only.
  await step("activateExisting", "POST", `${base}/${brandId}/serenity/activate`, {
    markets: [{ market: "ES", languageCode: "es" }],
  });

  // The releasing writes (unmetered): prompt delete, net model removal, market delete, deactivate.
  const prompts = await call(
    world,
    "GET",
    `${base}/${brandId}/serenity/prompts?geoTargetId=2840&languageCode=en&includeDrafts=true`,
  );
  const ids = (prompts.body.items as { id: string }[]).slice(0, 1).map((prompt) => prompt.id);
  statuses.deletePrompts = (
    await call(world, "DELETE", `${base}/${brandId}/serenity/prompts`, {
      geoTargetId: 2840,
      languageCode: "en",
      ids,
    })
  ).status;
  statuses.replaceModelsRemoving = (
    await call(world, "PUT", `${base}/${brandId}/serenity/markets/2840/en/models`, { modelIds: ["gpt-5"] })
  ).status;
  statuses.deleteMarket = (await call(world, "DELETE", `${base}/${brandId}/serenity/markets/2250/fr`)).status;
  statuses.deactivate = (await call(world, "POST", `${base}/${flat.body.id}/serenity/deactivate`)).status;
  return statuses;
}

const EXPECTED_STATUSES = {
  createBrandWithMarket: 201,
  createMarket: 201,
  bulkPrompts: 201,
  replaceModelsAdding: 200,
  activateProvisioning: 200,
  activateExisting: 200,
  deletePrompts: 204,
  replaceModelsRemoving: 200,
  deleteMarket: 204,
  deactivate: 200,
};

describe("choke point: every metered upstream write goes through the guard", () => {
  it("flag on, zero headroom: each metered call is preceded by a resources read of its workspace", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    await gold.sim.clearCalls();
    const statuses = await drive(gold);
    expect(statuses).toEqual(EXPECTED_STATUSES);

    const calls = await gold.sim.calls();
    const metered = calls.filter((c) => meteredKind(c) !== undefined);
    // The drive reached every kind of metered write, and nothing unclassified.
    expect(new Set(metered.map(meteredKind))).toEqual(
      new Set(["projectCreate", "promptCreate", "modelAdd", "publish"]),
    );
    expect(metered.length).toBeGreaterThanOrEqual(15);
    expect(unguardedMeteredCalls(calls)).toEqual([]);
    // Zero headroom before each operation: the guard had to top up, and every write was accepted.
    expect(calls.filter(isTransfer).length).toBeGreaterThanOrEqual(5);
    expect(metered.filter((c) => c.status >= 300)).toEqual([]);
    // Writes only ever went into the brands' sub-workspaces, never the shared parent.
    expect(metered.filter((c) => workspaceOf(c.path) === gold.parent)).toEqual([]);
  });

  it("the scan itself catches an unguarded metered call (a write with no read of its workspace before it)", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const read = (ws: string): Call => ({
      method: "GET",
      path: `${UM}/v1/workspaces/${ws}/resources`,
      status: 200,
      at,
    });
    const write = (ws: string, tail: string): Call => ({
      method: "POST",
      path: `${PE}/v1/workspaces/${ws}${tail}`,
      status: 201,
      at,
    });
    expect(
      unguardedMeteredCalls([read("a"), write("a", "/projects"), write("a", "/projects/p/publish")]),
    ).toEqual([`POST ${PE}/v1/workspaces/a/projects/p/publish`]);
    // A read of another workspace does not count, and an unknown write is treated as metered.
    expect(unguardedMeteredCalls([read("b"), write("a", "/projects/p/something-new")])).toHaveLength(1);
    expect(unguardedMeteredCalls([read("a"), write("a", "/projects/p/aio/tags")])).toEqual([]);
  });

  it("a call site that bypasses the guard (model add, here) is caught by the drive", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    // The real allocation guard, except that model adds skip it: what a new unguarded call site is.
    const real: { factory?: MeteredWriteGuardFactory } = {};
    const leaky: MeteredWriteGuardFactory = (context) => {
      const guard = real.factory!(context);
      return {
        write: (callSite, need, fn) => (callSite === "modelAdd" ? fn() : guard.write(callSite, need, fn)),
        releaseSurplus: (floor, reason) => guard.releaseSurplus(floor, reason),
      };
    };
    const world = await startWorld("gold", GOLD_PARENT_WORKSPACE_ID, leaky);
    real.factory = world.t.services.allocation.meteredWriteGuard;
    try {
      await drive(world);
      const unguarded = unguardedMeteredCalls(await world.sim.calls());
      expect(unguarded.length).toBeGreaterThan(0);
      expect(unguarded.every((line) => line.endsWith("/ai_models"))).toBe(true);
    } finally {
      await world.t.close();
      await world.sim.close();
    }
  });

  it("flag off: the same drive makes zero resources reads and zero transfers", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "false";
    await unmetered.sim.clearCalls();
    // The unmetered parent accepts every write whatever the totals, so each path runs to its end.
    const statuses = await drive(unmetered);
    expect(statuses).toEqual(EXPECTED_STATUSES);
    const calls = await unmetered.sim.calls();
    expect(calls.filter((c) => meteredKind(c) !== undefined).length).toBeGreaterThanOrEqual(15);
    expect(calls.filter(isResourcesRead)).toEqual([]);
    expect(calls.filter(isTransfer)).toEqual([]);
  });
});
