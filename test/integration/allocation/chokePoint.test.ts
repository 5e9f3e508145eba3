import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { endpointGroupOf } from "../../../src/domain/endpointGroup.ts";
import type { MeteredWriteGuardFactory } from "../../../src/domain/meteredWrites.ts";
import type { Call } from "../../../src/simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID, UNMETERED_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { fakeGuard } from "../../support/fakeGuards.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { PE, UM } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The choke point (spec/allocation.md §5) and the round-trip target (SPEC §7). With dynamic
 * allocation on, every API operation that writes upstream is driven in turn, the simulator's call
 * log cleared before each, and each operation's calls are checked on their own:
 *
 * - EVERY metered call (project create, prompt create, model add, publish — and any write nobody
 *   classified) into a workspace is preceded, earlier in the same operation, by a resources read of
 *   that workspace. "Metered" is decided generically: any upstream write not on the short list of
 *   known unmetered writes below, so a new write endpoint or a new call site without the guard
 *   fails this test.
 * - Each operation that writes makes exactly ONE resources read per written sub-workspace (one
 *   guarded section per operation and workspace, its lock held across all the writes), and at most
 *   one transfer: at most 1 extra call with headroom available, 2 with a top-up.
 *
 * Driven twice: with zero headroom before each operation (every section must top up) and with
 * headroom available (no transfer on an existing sub-workspace: exactly 1 extra call). Two
 * mutations show the checks can fail: a guard that lets model adds bypass it, and the old design of
 * one guarded section per write.
 *
 * Kill switch (§2): the same drive with the flag off makes zero resources reads and zero transfers.
 *
 * Jobs: the chained job paths (create-market, activate-*) reach upstream through
 * MarketService.createForBrand, the same code the synchronous activate paths drive here.
 */

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

/** Every metered call of one operation with no resources read of its workspace earlier in it. */
function unguardedMeteredCalls(calls: readonly Call[]): string[] {
  const unguarded: string[] = [];
  const read = new Set<string>();
  for (const call of calls) {
    if (isResourcesRead(call)) read.add(workspaceOf(call.path));
    else if (meteredKind(call) !== undefined && !read.has(workspaceOf(call.path))) {
      unguarded.push(`${call.method} ${call.path}`);
    }
  }
  return unguarded;
}

/** Per workspace written by metered calls in one operation: its resources reads and transfers. */
function guardCallsPerWrittenWorkspace(
  calls: readonly Call[],
): Map<string, { reads: number; transfers: number }> {
  const written = new Map<string, { reads: number; transfers: number }>();
  for (const call of calls) {
    if (meteredKind(call) !== undefined) written.set(workspaceOf(call.path), { reads: 0, transfers: 0 });
  }
  for (const call of calls) {
    const counts =
      isResourcesRead(call) || isTransfer(call) ? written.get(workspaceOf(call.path)) : undefined;
    if (counts && isResourcesRead(call)) counts.reads++;
    if (counts && isTransfer(call)) counts.transfers++;
  }
  return written;
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
/** A gold world whose guard the mutation tests swap (the real one unless a test says otherwise). */
let mutable: World;
let mutableGuard: (real: MeteredWriteGuardFactory) => MeteredWriteGuardFactory = (real) => real;
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
  const swappable: MeteredWriteGuardFactory = (context) =>
    mutableGuard(mutable.t.services.allocation.meteredWrites)(context);
  [gold, unmetered, mutable] = await Promise.all([
    startWorld("gold", GOLD_PARENT_WORKSPACE_ID),
    startWorld("unmetered", UNMETERED_PARENT_WORKSPACE_ID),
    startWorld("gold", GOLD_PARENT_WORKSPACE_ID, swappable),
  ]);
});
afterEach(() => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = originalFlag;
  mutableGuard = (real) => real;
});
afterAll(async () => {
  for (const world of [gold, unmetered, mutable]) {
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

/** Sets every sub-workspace of the org to `total = used + drafted + spare` per dimension. */
async function setHeadroom(world: World, spare: { projects: number; prompts: number }): Promise<void> {
  const dump = await world.sim.dump();
  for (const workspace of dump.workspaces.filter((w) => w.parent_id === world.parent)) {
    const { projects, prompts } = workspace.resources;
    await world.sim.control("/quota", {
      workspaceId: workspace.id,
      projects: projects.used + projects.drafted + spare.projects,
      prompts: prompts.used + prompts.drafted + spare.prompts,
    });
  }
}

/** Before each operation: no headroom at all (every section must top up), or plenty (none must). */
type Headroom = "none" | "available";
const SPARE: Record<Headroom, { projects: number; prompts: number }> = {
  none: { projects: 0, prompts: 0 },
  available: { projects: 5, prompts: 1_000 },
};

/** The operations that make metered writes (the rest only release). */
const METERED_OPERATIONS = [
  "createBrandWithMarket",
  "createMarket",
  "bulkPrompts",
  "replaceModelsAdding",
  "activateProvisioning",
  "activateExisting",
] as const;
/** Metered operations on a sub-workspace that existed before them (the others provision a fresh one at zero allocation). */
const ON_EXISTING_WORKSPACE = ["createMarket", "bulkPrompts", "replaceModelsAdding", "activateExisting"];

interface Drive {
  statuses: Record<string, number>;
  /** Each operation's upstream calls, the log cleared before it. */
  calls: Record<string, Call[]>;
}

let driveCount = 0;

/**
 * Every API operation that writes upstream, one after the other, each with the headroom asked
 * for and its own call log; then the unmetered writes that release.
 */
async function drive(world: World, headroom: Headroom): Promise<Drive> {
  const run = ++driveCount;
  const result: Drive = { statuses: {}, calls: {} };
  const base = `/v2/orgs/${world.orgId}/brands`;
  const step = async (name: string, method: string, url: string, body?: unknown) => {
    await setHeadroom(world, SPARE[headroom]);
    await world.sim.clearCalls();
    const answer = await call(world, method, url, body);
    result.statuses[name] = answer.status;
    result.calls[name] = await world.sim.calls();
    return answer;
  };

  // Create brand with semrushMarket (sync): a fresh sub-workspace (zero allocation) and its market.
  const created = await step("createBrandWithMarket", "POST", base, {
    name: `Provisioned ${run}`,
    domain: `provisioned${run}.example`,
    semrushMarket: { market: "US", languageCode: "en" },
  });
  const brandId = created.body.id as string;
  await step("createMarket", "POST", `${base}/${brandId}/serenity/markets`, {
    market: "FR",
    languageCode: "fr",
  });
  // Bulk prompts into two markets (two projects of one sub-workspace: one guarded section).
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
  const flat = await call(world, "POST", base, {
    name: `Flat then active ${run}`,
    domain: `flat${run}.example`,
  });
  await step("activateProvisioning", "POST", `${base}/${flat.body.id}/serenity/activate`, {
    markets: [{ market: "DE", languageCode: "de" }],
  });
  // Activate a brand that has its sub-workspace: markets only.
  await step("activateExisting", "POST", `${base}/${brandId}/serenity/activate`, {
    markets: [{ market: "ES", languageCode: "es" }],
  });

  // The releasing operations: prompt delete (and its publish), net model removal (and its
  // publish), market delete, deactivate.
  const prompts = await call(
    world,
    "GET",
    `${base}/${brandId}/serenity/prompts?geoTargetId=2840&languageCode=en&includeDrafts=true`,
  );
  const ids = (prompts.body.items as { id: string }[]).slice(0, 1).map((prompt) => prompt.id);
  await step("deletePrompts", "DELETE", `${base}/${brandId}/serenity/prompts`, {
    geoTargetId: 2840,
    languageCode: "en",
    ids,
  });
  await step("replaceModelsRemoving", "PUT", `${base}/${brandId}/serenity/markets/2840/en/models`, {
    modelIds: ["gpt-5"],
  });
  await step("deleteMarket", "DELETE", `${base}/${brandId}/serenity/markets/2250/fr`);
  await step("deactivate", "POST", `${base}/${flat.body.id}/serenity/deactivate`);
  return result;
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

/** Each operation's metered calls with no earlier read of their workspace in that operation. */
function unguardedPerOperation(result: Drive): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(result.calls)
      .map(([name, calls]) => [name, unguardedMeteredCalls(calls)] as const)
      .filter(([, unguarded]) => unguarded.length > 0),
  );
}

/** Per metered operation: `reads/transfers` of each sub-workspace it wrote, in workspace order. */
function guardCallsPerOperation(result: Drive): Record<string, string[]> {
  return Object.fromEntries(
    METERED_OPERATIONS.map((name) => [
      name,
      [...guardCallsPerWrittenWorkspace(result.calls[name]!).values()].map(
        ({ reads, transfers }) => `${reads}/${transfers}`,
      ),
    ]),
  );
}

describe("choke point: every metered upstream write goes through the guard", () => {
  it("flag on, zero headroom: each metered call follows a read of its workspace in its operation; one read and one transfer per written workspace", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    const result = await drive(gold, "none");
    expect(result.statuses).toEqual(EXPECTED_STATUSES);

    const calls = Object.values(result.calls).flat();
    const metered = calls.filter((c) => meteredKind(c) !== undefined);
    // The drive reached every kind of metered write, and nothing unclassified.
    expect(new Set(metered.map(meteredKind))).toEqual(
      new Set(["projectCreate", "promptCreate", "modelAdd", "publish"]),
    );
    expect(metered.length).toBeGreaterThanOrEqual(15);
    expect(unguardedPerOperation(result)).toEqual({});
    // One section per operation and written sub-workspace: ONE read, and (no headroom) ONE
    // transfer carrying every short dimension — 2 extra calls, the top-up bound of SPEC §7.
    // Each metered operation here writes exactly one sub-workspace.
    expect(guardCallsPerOperation(result)).toEqual(
      Object.fromEntries(METERED_OPERATIONS.map((name) => [name, ["1/1"]])),
    );
    // Every write was accepted: the top-ups were enough, no retry on a quota 405.
    expect(metered.filter((c) => c.status >= 300)).toEqual([]);
    // Writes only ever went into the brands' sub-workspaces, never the shared parent.
    expect(metered.filter((c) => workspaceOf(c.path) === gold.parent)).toEqual([]);
  });

  it("flag on, headroom available: exactly ONE extra call (the read) per metered operation on an existing sub-workspace", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    const result = await drive(mutable, "available");
    expect(result.statuses).toEqual(EXPECTED_STATUSES);
    expect(unguardedPerOperation(result)).toEqual({});
    expect(guardCallsPerOperation(result)).toEqual(
      Object.fromEntries(
        METERED_OPERATIONS.map((name) => [
          name,
          // A freshly provisioned sub-workspace starts at zero allocation: its one top-up.
          [ON_EXISTING_WORKSPACE.includes(name) ? "1/0" : "1/1"],
        ]),
      ),
    );
  });

  it("the scan itself catches an unguarded metered call (a write with no read of its workspace before it)", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const read = (ws: string): Call => ({
      method: "GET",
      path: `${UM}/v1/workspaces/${ws}/resources`,
      status: 200,
      at,
      group: "workspaces",
      throttled: false,
    });
    const write = (ws: string, tail: string): Call => ({
      method: "POST",
      path: `${PE}/v1/workspaces/${ws}${tail}`,
      status: 201,
      at,
      group: endpointGroupOf("pe", tail),
      throttled: false,
    });
    // One read covers every later write of the operation into its workspace…
    expect(
      unguardedMeteredCalls([read("a"), write("a", "/projects"), write("a", "/projects/p/publish")]),
    ).toEqual([]);
    // …but not a write before it.
    expect(
      unguardedMeteredCalls([write("a", "/projects"), read("a"), write("a", "/projects/p/publish")]),
    ).toEqual([`POST ${PE}/v1/workspaces/a/projects`]);
    // A read of another workspace does not count, and an unknown write is treated as metered.
    expect(unguardedMeteredCalls([read("b"), write("a", "/projects/p/something-new")])).toHaveLength(1);
    expect(unguardedMeteredCalls([read("a"), write("a", "/projects/p/aio/tags")])).toEqual([]);
    // The read count is per written workspace.
    expect([
      ...guardCallsPerWrittenWorkspace([
        read("a"),
        read("b"),
        write("a", "/projects"),
        read("a"),
        write("a", "/projects/p/publish"),
      ]),
    ]).toEqual([["a", { reads: 2, transfers: 0 }]]);
  });

  it("a call site that bypasses the guard (model add, here) is caught by the drive", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    // The real allocation guard, except that model adds skip it: what a new unguarded call site
    // is. The other writes each get a guarded section of their own, so no read comes first for a
    // model add in an operation that starts with one (replace models).
    mutableGuard = (real) => (context) => {
      const guard = real(context);
      return fakeGuard({
        section: (_need, work) =>
          work((callSite, fn, stages) =>
            callSite === "modelAdd" ? fn() : guard.singleWrite(callSite, stages ?? {}, fn),
          ),
        releaseSurplus: (floor, reason) => guard.releaseSurplus(floor, reason),
      });
    };
    const result = await drive(mutable, "none");
    const unguarded = Object.values(unguardedPerOperation(result)).flat();
    expect(unguarded.length).toBeGreaterThan(0);
    expect(unguarded.every((line) => line.endsWith("/ai_models"))).toBe(true);
  });

  it("one guarded section per write (the old design) is caught by the one-read rule", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
    // Every write guarded, but each in a section of its own: a read per metered write.
    mutableGuard = (real) => (context) => {
      const guard = real(context);
      return fakeGuard({
        section: (_need, work) =>
          work((callSite, fn, stages) => guard.singleWrite(callSite, stages ?? {}, fn)),
        releaseSurplus: (floor, reason) => guard.releaseSurplus(floor, reason),
      });
    };
    const result = await drive(mutable, "available");
    expect(unguardedPerOperation(result)).toEqual({});
    const reads = guardCallsPerOperation(result);
    // Bulk prompts: two creates and two publishes; create market: project, model adds, publish.
    expect(reads.bulkPrompts).toEqual(["4/0"]);
    expect(Number(reads.createMarket![0]!.split("/")[0])).toBeGreaterThanOrEqual(3);
  });

  it("flag off: the same drive makes zero resources reads and zero transfers", async () => {
    process.env.SERENITY_DYNAMIC_ALLOCATION = "false";
    // The unmetered parent accepts every write whatever the totals, so each path runs to its end.
    const result = await drive(unmetered, "none");
    expect(result.statuses).toEqual(EXPECTED_STATUSES);
    const calls = Object.values(result.calls).flat();
    expect(calls.filter((c) => meteredKind(c) !== undefined).length).toBeGreaterThanOrEqual(15);
    expect(calls.filter(isResourcesRead)).toEqual([]);
    expect(calls.filter(isTransfer)).toEqual([]);
  });
});
