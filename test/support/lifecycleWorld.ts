import { sql } from "drizzle-orm";
import { expect } from "vitest";

import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import { jobs, markets } from "../../src/db/schema.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { createGatewayClient } from "../../src/gateway/gatewayClient.ts";
import { JobWorker } from "../../src/jobs/worker.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { observeUpstream } from "../../src/operations/observeUpstream.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { expectInvariants } from "./reliabilityInvariants.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";
import { createTestApp, type TestApp } from "./testApp.ts";
import { observe } from "./workerCrashWorld.ts";

/**
 * The brand-lifecycle reliability suites' world: the gold simulator (a metered parent,
 * 13 projects / 800 prompts) with dynamic allocation on, the app listening on a real port (every
 * request is real HTTP), and a job worker running in the same process on the system clock. The
 * suites drive it by observed state: database rows and the simulator's store.
 */
export const PARENT = GOLD_PARENT_WORKSPACE_ID;
export const POOL = { projects: 13, prompts: 800 };

export interface HttpAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are read loosely in assertions
  body: any;
  headers: Headers;
}

export interface LifecycleWorld {
  sim: TestSimulator;
  t: TestApp;
  baseUrl: string;
  orgId: string;
  token: string;
  /** A real HTTP request to the app; the body parsed when JSON. */
  http(method: string, path: string, body?: unknown): Promise<HttpAnswer>;
  /**
   * Until no job is IN_PROGRESS (observed in the jobs table). Retry delays are pg-boss start times:
   * they are made due on every look, the queue's notion of time passing (no wall-time wait).
   */
  settled(): Promise<void>;
  /** The org's parent workspace (the gold parent, or the suite's own). */
  parentId: string;
  /** What upstream holds under the parent, and what Serenity tracks. */
  upstream(): Promise<{
    children: {
      id: string;
      title: string;
      projects: number;
      totals: { projects: number; prompts: number };
    }[];
    parentTotals: { projects: number; prompts: number };
    untrackedProjects: { id: string; workspaceId: string; name: string }[];
  }>;
  /**
   * The harness's invariants (test/support/reliabilityInvariants.ts) on what the upstream
   * reconciler observes now, without letting it act: pool conserved, zero orphans, every job
   * terminal, every brand consistent with upstream.
   */
  expectInvariants(): Promise<void>;
  close(): Promise<void>;
}

export async function startLifecycleWorld(
  options: { latencyMs?: number; pool?: { projects: number; prompts: number } } = {},
): Promise<LifecycleWorld> {
  const sim = await startTestSimulator({ seed: "gold", settings: { latencyMs: options.latencyMs ?? 15 } });
  // A parent of its own when the suite needs a bigger pool than the gold parent's 13 / 800.
  const parentId = options.pool
    ? await sim.addParent({ title: "Lifecycle parent", ...options.pool })
    : PARENT;
  const t = await createTestApp({ gateway: { url: sim.url, maxRetries: 2 } });
  const baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const jobSystem = t.services.jobs;
  const worker = new JobWorker(
    {
      db: t.db.db,
      clock: systemClock,
      logger: createLogger({ level: "debug", destination: t.logs }),
      events: t.events,
      registry: jobSystem.registry,
      queue: jobSystem.queue,
      credentials: jobSystem.credentials,
    },
    { reconcileIntervalMs: 0, idleWaitMs: 50, concurrency: 4 },
  );
  await worker.start();
  const admin = await t.token({ sub: "admin", admin: true });
  // The reconciler's own reads (a client of its own: the suites' faults target the app's calls).
  const observer = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
    clock: systemClock,
  });

  async function http(method: string, path: string, body?: unknown, bearer?: string) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer ?? world.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as unknown) : undefined,
      headers: response.headers,
    };
  }

  const org = await http("POST", "/v2/orgs", { name: "Lifecycle org", parentWorkspaceId: parentId }, admin);
  expect(org.status).toBe(201);
  const orgId = (org.body as { id: string }).id;

  const world: LifecycleWorld = {
    sim,
    t,
    baseUrl,
    orgId,
    token: await t.token({ sub: "user-1", orgs: [orgId] }),
    http: (method, path, body) => http(method, path, body) as ReturnType<LifecycleWorld["http"]>,
    parentId,
    async settled() {
      await observe("every job is terminal", async () => {
        await t.db.db.execute(
          sql`update pgboss.job set start_after = now() - interval '1 second' where state in ('created', 'retry')`,
        );
        const rows = await t.db.db.execute<{ n: number }>(
          sql`select count(*)::int as n from ${jobs} where status = 'IN_PROGRESS'`,
        );
        return rows.rows[0]!.n === 0 ? true : undefined;
      });
    },
    async upstream() {
      const dump = await sim.dump();
      const tracked = new Set(
        (await t.db.db.select({ projectId: markets.projectId }).from(markets)).map((row) => row.projectId),
      );
      const children = dump.workspaces
        .filter((workspace) => workspace.parent_id === parentId)
        .map((workspace) => ({
          id: workspace.id,
          title: workspace.title,
          projects: dump.projects.filter((project) => project.workspace_id === workspace.id).length,
          totals: {
            projects: workspace.resources.projects.total,
            prompts: workspace.resources.prompts.total,
          },
        }));
      const parent = dump.workspaces.find((workspace) => workspace.id === parentId)!;
      const under = new Set([parentId, ...children.map((child) => child.id)]);
      return {
        children,
        parentTotals: { projects: parent.resources.projects.total, prompts: parent.resources.prompts.total },
        untrackedProjects: dump.projects
          .filter((project) => under.has(project.workspace_id) && !tracked.has(project.id))
          .map((project) => ({ id: project.id, workspaceId: project.workspace_id, name: project.name })),
      };
    },
    async expectInvariants() {
      const pool = options.pool ?? POOL;
      const org = { id: orgId, parentWorkspaceId: parentId };
      const observation = await observeUpstream(
        {
          db: t.db.db,
          clock: systemClock,
          events: new EventBus(),
          logger: createLogger({ level: "silent" }),
          gateway: observer,
          upstream: gatewayAllocationUpstream(observer),
        },
        org,
        world.token,
      );
      await expectInvariants(t.db, {
        orgId,
        parentWorkspaceId: parentId,
        dump: await sim.dump(),
        observation,
        pool,
      });
    },
    async close() {
      await observer.close();
      await worker.stop();
      await t.close();
      await sim.close();
    },
  };
  return world;
}
