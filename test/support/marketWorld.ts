import { eq } from "drizzle-orm";
import { expect } from "vitest";

import { brands } from "../../src/db/schema.ts";
import type { Clock } from "../../src/domain/clock.ts";
import type { MeteredWriteGuardFactory } from "../../src/domain/meteredWrites.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import type { SimProject } from "../../src/simulator/store/types.ts";
import { startTestSimulator, type TestSimulator, UM } from "./simulator.ts";
import { type Answer, callRoute, createTestApp, type TestApp } from "./testApp.ts";

/**
 * The markets/prompts suites' world: the gold simulator over real HTTP, the app with the real
 * gateway client pointed at it, an org on the gold parent with a flat brand, and a recorder of
 * every response of the routes under test (for the leak scan).
 */
export interface MarketWorld {
  sim: TestSimulator;
  t: TestApp;
  orgId: string;
  brandId: string;
  token: string;
  /** Every response body the suite's route calls produced. */
  responses: string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are read loosely in assertions
  call<T = any>(method: string, url: string, body?: unknown, token?: string): Promise<Answer<T>>;
  createBrand(input?: {
    name?: string;
    domain?: string | null;
    primaryUrl?: string | null;
    orgId?: string;
  }): Promise<string>;
  createOrg(parentWorkspaceId: string | null): Promise<string>;
  setBrand(brandId: string, values: Partial<typeof brands.$inferInsert>): Promise<void>;
  /** A settled child of the gold parent with the given AI allocation. */
  createSubWorkspace(title: string, allocation: { projects?: number; prompts?: number }): Promise<string>;
  marketsUrl(brandId?: string, orgId?: string): string;
  promptsUrl(brandId?: string, orgId?: string): string;
  projects(workspaceId?: string): SimProject[];
  close(): Promise<void>;
}

export async function startMarketWorld(
  options: { meteredWrites?: MeteredWriteGuardFactory; clock?: Clock } = {},
): Promise<MarketWorld> {
  const sim = await startTestSimulator({ seed: "gold" });
  // No client retries: fault rules then hit exactly once, and no test waits for a backoff.
  const t = await createTestApp({
    gateway: { url: sim.url, maxRetries: 0 },
    meteredWrites: options.meteredWrites,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const admin = await t.token({ admin: true });
  const responses: string[] = [];

  const call = <T>(method: string, url: string, body?: unknown, token?: string) =>
    callRoute<T>(t.app, { method, url, body, token: token ?? world.token }, { record: responses });

  async function createOrg(parentWorkspaceId: string | null): Promise<string> {
    const response = await t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${admin}` },
      payload: { name: "Acme group", parentWorkspaceId },
    });
    expect(response.statusCode).toBe(201);
    return response.json().id;
  }

  async function createBrand(
    input: { name?: string; domain?: string | null; primaryUrl?: string | null; orgId?: string } = {},
  ) {
    const response = await t.app.inject({
      method: "POST",
      url: `/v2/orgs/${input.orgId ?? world.orgId}/brands`,
      headers: { authorization: `Bearer ${admin}` },
      payload: {
        name: input.name ?? "Acme",
        domain: input.domain === undefined ? "acme.example" : input.domain,
        primaryUrl: input.primaryUrl === undefined ? "https://acme.example/" : input.primaryUrl,
      },
    });
    expect(response.statusCode).toBe(201);
    return response.json().id as string;
  }

  const orgId = await createOrg(GOLD_PARENT_WORKSPACE_ID);
  const world: MarketWorld = {
    sim,
    t,
    orgId,
    brandId: "",
    token: await t.token({ sub: "user-1", orgs: [orgId] }),
    responses,
    call,
    createBrand,
    createOrg,
    setBrand: async (brandId, values) => {
      await t.db.db.update(brands).set(values).where(eq(brands.id, brandId));
    },
    createSubWorkspace: async (title, allocation) => {
      const headers = { authorization: `Bearer ${world.token}`, "content-type": "application/json" };
      const created = await fetch(`${sim.url}${UM}/v2/workspaces/${GOLD_PARENT_WORKSPACE_ID}/child`, {
        method: "POST",
        headers,
        body: JSON.stringify({ title, resources: { ai: allocation } }),
      });
      expect(created.status).toBe(200);
      const { id } = (await created.json()) as { id: string };
      // The gold simulator settles a child after a couple of status reads.
      for (let read = 0; read < 10; read++) {
        const status = await fetch(`${sim.url}${UM}/v1/workspaces/${id}/status`, { headers });
        if (((await status.json()) as { status: string }).status === "created") break;
      }
      return id;
    },
    marketsUrl: (brandId = world.brandId, org = world.orgId) =>
      `/v2/orgs/${org}/brands/${brandId}/serenity/markets`,
    promptsUrl: (brandId = world.brandId, org = world.orgId) =>
      `/v2/orgs/${org}/brands/${brandId}/serenity/prompts`,
    projects: (workspaceId) =>
      [...sim.simulator.store.projects.values()].filter((p) => !workspaceId || p.workspaceId === workspaceId),
    close: async () => {
      await t.close();
      await sim.close();
    },
  };
  world.brandId = await createBrand();
  return world;
}

/** Upstream wording that must never reach a caller (spec/gateway.md §5 bodies, PE/UM paths). */
const UPSTREAM_MARKERS = [
  "Not authenticated",
  "invalid access attempt",
  '"message":"not found"',
  "405 Not Allowed",
  "<html",
  "Method Not Allowed",
  "invalid language",
  "invalid location",
  "insufficient available units",
  "/enterprise/",
  "/v1/workspaces",
  "/v2/workspaces",
];

/** The leak scan: no upstream body, no workspace id, no bearer in any recorded response. */
export function expectNoLeaks(
  responses: readonly string[],
  secrets: { bearers: string[]; workspaceIds: string[] },
): void {
  expect(responses.length).toBeGreaterThan(0);
  for (const body of responses) {
    for (const marker of UPSTREAM_MARKERS) expect(body, `response leaks "${marker}"`).not.toContain(marker);
    for (const id of secrets.workspaceIds) expect(body, "response leaks a workspace id").not.toContain(id);
    for (const bearer of secrets.bearers) expect(body, "response leaks the bearer").not.toContain(bearer);
  }
}

/** Calls of the simulator's log without the catalogue reads, as `METHOD path-with-ids-templated`. */
export function callShape(calls: { method: string; path: string }[], ids: Record<string, string>): string[] {
  return calls.map((call) => {
    let path = call.path;
    for (const [name, id] of Object.entries(ids)) path = path.split(id).join(`{${name}}`);
    return `${call.method} ${path}`;
  });
}
