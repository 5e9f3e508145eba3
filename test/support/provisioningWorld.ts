import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";

import { brands } from "../../src/db/schema.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { ManualClock } from "./manualClock.ts";
import { expectNoLeaks } from "./marketWorld.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";
import { PE, UM } from "./simulator.ts";
import { type Answer, callRoute, createTestApp, type TestApp, type TestAppOptions } from "./testApp.ts";
import { nextTurn } from "./wait.ts";

/**
 * An unmetered parent: with allocation off (the passthrough guard), a fresh sub-workspace of a
 * metered parent has no units for a market; allocation's own suites cover the metered case.
 */
export const PARENT = UNMETERED_PARENT_WORKSPACE_ID;

/**
 * The brands-provisioning suites' world: the unmetered simulator over real HTTP, the app with the real
 * gateway client (no client retries, so a fault rule hits exactly once) and a ManualClock, an org
 * on the gold parent. Every route call runs while the clock is pumped, so a settle wait costs no
 * real time: each time the code under test sleeps, the clock jumps by `stepMs`.
 */
export interface ProvisioningWorld {
  sim: TestSimulator;
  t: TestApp;
  clock: ManualClock;
  orgId: string;
  token: string;
  admin: string;
  responses: string[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are read loosely in assertions
  call<T = any>(method: string, url: string, body?: unknown, token?: string): Promise<Answer<T>>;
  createOrg(parentWorkspaceId: string | null): Promise<string>;
  brand(brandId: string): Promise<typeof brands.$inferSelect>;
  setBrand(brandId: string, values: Partial<typeof brands.$inferInsert>): Promise<void>;
  /** A child of the parent created straight on the simulator, settled unless `settle: false`. */
  createSubWorkspace(title: string, options?: { settle?: boolean }): Promise<string>;
  /** Calls of the simulator's log as `METHOD path`, ids replaced by `{name}`. */
  callShape(ids?: Record<string, string>): Promise<string[]>;
  childrenTitled(title: string): Promise<{ id: string; status: string }[]>;
  close(): Promise<void>;
}

let named = 0;
/** A brand name no other test of the run uses (brands are titled after it upstream). */
export function uniqueName(name: string): string {
  return `${name} ${++named}-${randomUUID().slice(0, 6)}`;
}

/** Resolves `work` while advancing the clock whenever the code under test is asleep on it. */
export async function pumping<T>(clock: ManualClock, work: Promise<T>, stepMs = 250): Promise<T> {
  let done = false;
  const finished = work.finally(() => {
    done = true;
  });
  // Observed below; without this a rejection during the loop would be flagged as unhandled.
  finished.catch(() => {});
  while (!done) {
    if (clock.pendingSleeps > 0) clock.advance(stepMs);
    // Yield to I/O (the simulator answers over real HTTP); this is not a wait for a backoff.
    await nextTurn(1);
  }
  return finished;
}

export async function startProvisioningWorld(
  app: Pick<TestAppOptions, "generationEnv" | "settingsCacheMs"> = {},
): Promise<ProvisioningWorld> {
  const sim = await startTestSimulator({ seed: "unmetered" });
  const clock = new ManualClock(new Date());
  const t = await createTestApp({ clock, gateway: { url: sim.url, maxRetries: 0 }, ...app });
  const admin = await t.token({ sub: "admin", admin: true });
  const responses: string[] = [];

  const call = <T>(method: string, url: string, body?: unknown, token?: string) =>
    callRoute<T>(
      t.app,
      { method, url, body, token: token ?? world.token },
      { record: responses, drive: (work) => pumping(clock, work) },
    );

  async function createOrg(parentWorkspaceId: string | null): Promise<string> {
    const response = await call<{ id: string }>(
      "POST",
      "/v2/orgs",
      { name: "Acme group", parentWorkspaceId },
      admin,
    );
    expect(response.status).toBe(201);
    return response.body.id;
  }

  const um = (path: string, init: RequestInit = {}) =>
    fetch(`${sim.url}${UM}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    });

  const orgId = await createOrg(PARENT);
  const world: ProvisioningWorld = {
    sim,
    t,
    clock,
    orgId,
    admin,
    token: await t.token({ sub: "user-1", orgs: [orgId] }),
    responses,
    call,
    createOrg,
    brand: async (brandId) => {
      const [row] = await t.db.db.select().from(brands).where(eq(brands.id, brandId));
      return row!;
    },
    setBrand: async (brandId, values) => {
      await t.db.db.update(brands).set(values).where(eq(brands.id, brandId));
    },
    createSubWorkspace: async (title, options = {}) => {
      const created = await um(`/v2/workspaces/${PARENT}/child`, {
        method: "POST",
        body: JSON.stringify({ title, resources: {} }),
      });
      expect(created.status).toBe(200);
      const { id } = (await created.json()) as { id: string };
      if (options.settle !== false) await sim.control("/status", { workspaceId: id, notReadyReads: 0 });
      return id;
    },
    callShape: async (ids = {}) =>
      (await sim.calls()).map((entry) => {
        let path = entry.path.replace(UM, "UM").replace(PE, "PE");
        for (const [name, id] of Object.entries({ parent: PARENT, ...ids }))
          path = path.split(id).join(`{${name}}`);
        return `${entry.method} ${path}`;
      }),
    childrenTitled: async (title) =>
      (await sim.dump()).workspaces
        .filter((workspace) => workspace.parent_id === PARENT && workspace.title === title)
        .map((workspace) => ({ id: workspace.id, status: workspace.status })),
    close: async () => {
      await t.close();
      await sim.close();
    },
  };
  return world;
}

/**
 * The lifecycle every provisioning suite shares: one world per file, faults and the call log reset
 * before each test, and at the end a leak scan — no error response of the suite may carry an
 * upstream body, a workspace id or a bearer.
 */
export function useProvisioningWorld(receive: (world: ProvisioningWorld) => void): void {
  let world: ProvisioningWorld;
  beforeAll(async () => {
    world = await startProvisioningWorld();
    receive(world);
  });
  afterAll(async () => {
    try {
      const errors = world.responses.filter(isProblem);
      const workspaceIds = (await world.sim.dump()).workspaces.map((workspace) => workspace.id);
      expectNoLeaks(errors, { bearers: [world.token, world.admin], workspaceIds });
    } finally {
      await world.close();
    }
  });
  beforeEach(async () => {
    await world.sim.control("/faults", undefined, "DELETE");
    await world.sim.clearCalls();
  });
}

/** An error answer: an RFC 9457 problem document carrying a registry code (ADR 0037). */
function isProblem(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null && "type" in parsed && "code" in parsed;
  } catch {
    return false;
  }
}
