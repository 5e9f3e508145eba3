import { expect } from "vitest";

import { gatewayAllocationUpstream } from "../../src/allocation/gatewayAllocationUpstream.ts";
import { systemClock } from "../../src/domain/clock.ts";
import type { GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { JobWorker } from "../../src/jobs/worker.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../src/operations/upstreamReconciler.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { type RecordingProxy, startRecordingProxy } from "./recordingProxy.ts";
import { startTestSimulator, type TestSimulator } from "./simulator.ts";
import { createTestApp, type TestApp } from "./testApp.ts";
import { waitFor } from "./wait.ts";

/**
 * The conformance suite's world: the gold simulator (metered parent, 13 projects / 800 prompts)
 * behind a recording proxy, the app listening on a real port with allocation and prompt generation
 * on, its gateway client pointed at the proxy, a job worker in the same process, and the upstream
 * reconciler on the same client. Every upstream exchange any of them makes is in `proxy.exchanges`.
 */
export interface ConformanceWorld {
  sim: TestSimulator;
  proxy: RecordingProxy;
  t: TestApp;
  /** The app's own gateway client (the one the proxy records). */
  gateway: GatewayClient;
  reconciler: UpstreamReconciler;
  orgId: string;
  /** The org user's token: Serenity forwards it upstream as the bearer. */
  token: string;
  parentId: string;
  http(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Until the job answers something other than IN_PROGRESS (observed through the API). */
  jobDone(path: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  close(): Promise<void>;
}

export async function startConformanceWorld(): Promise<ConformanceWorld> {
  const previousAllocation = process.env.SERENITY_DYNAMIC_ALLOCATION;
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  const sim = await startTestSimulator({ seed: "gold" });
  const proxy = await startRecordingProxy(sim.url);
  const t = await createTestApp({
    gateway: { url: proxy.url, maxRetries: 2 },
    generationEnv: { SERENITY_ASYNC_PROMPT_GEN: "true", SERENITY_PROMPT_GENERATOR: "builtin" },
  });
  const gateway = t.gateway!;
  const baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const jobs = t.services.jobs;
  const worker = new JobWorker(
    {
      db: t.db.db,
      clock: systemClock,
      logger: createLogger({ level: "debug", destination: t.logs }),
      events: t.events,
      registry: jobs.registry,
      queue: jobs.queue,
      credentials: jobs.credentials,
    },
    { reconcileIntervalMs: 0, idleWaitMs: 20, concurrency: 4 },
  );
  await worker.start();
  const reconciler = new UpstreamReconciler({
    db: t.db.db,
    clock: systemClock,
    logger: createLogger({ level: "silent" }),
    events: new EventBus(),
    gateway,
    upstream: gatewayAllocationUpstream(gateway),
    allocation: t.services.allocation,
    brandLease: t.services.brandLease,
    identity: { gateway, meteredWrites: t.services.allocation.meteredWrites },
  });

  async function http(method: string, path: string, body: unknown, bearer: string) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  const admin = await t.token({ sub: "admin", admin: true });
  const org = await http(
    "POST",
    "/v2/orgs",
    { name: "Conformance org", parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID },
    admin,
  );
  expect(org.status).toBe(201);
  const orgId = (org.body as { id: string }).id;
  const token = await t.token({ sub: "user-1", orgs: [orgId] });

  return {
    sim,
    proxy,
    t,
    gateway,
    reconciler,
    orgId,
    token,
    parentId: GOLD_PARENT_WORKSPACE_ID,
    http: (method, path, body) => http(method, path, body, token),
    async jobDone(path) {
      let last: unknown;
      await waitFor(
        async () => {
          last = (await http("GET", path, undefined, token)).body;
          return (last as { status?: string } | undefined)?.status !== "IN_PROGRESS";
        },
        { timeoutMs: 60_000, what: `job ${path} finished` },
      );
      return last;
    },
    async close() {
      await worker.stop();
      await t.close();
      await proxy.close();
      await sim.close();
      if (previousAllocation === undefined) delete process.env.SERENITY_DYNAMIC_ALLOCATION;
      else process.env.SERENITY_DYNAMIC_ALLOCATION = previousAllocation;
    },
  };
}
