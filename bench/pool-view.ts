/**
 * The pool view (`GET …/serenity/resources`) at 200 brands, answered from the resources record
 * (ADR 0020), side by side in one run: a **cold** view (the record emptied before each: every
 * workspace read upstream, four at once), a **warm** view (every entry younger than
 * SERENITY_POOL_VIEW_MAX_AGE_MS: no upstream call), and a **stale** view (every entry past the max
 * age: served at once, refreshed in the background) with the cost of that background pass.
 *
 *   npx tsx bench/pool-view.ts [--brands 200] [--views 200] [--cold 5] [--latency 50]
 *
 * Our API in-process (Fastify inject), the real gateway client over real HTTP, the in-process
 * simulator with `--latency` ms added to every upstream call (spec/gateway.md §7's runs used 50).
 * Upstream calls are counted in the simulator's own call log. Uses DATABASE_URL's server when set
 * (a scratch database is created and dropped), else an embedded PostgreSQL in a temporary directory.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { sql } from "drizzle-orm";

import { buildApp } from "../src/api/app.ts";
import { hs256Verifier, signDevToken } from "../src/auth/tokenVerifier.ts";
import { openDatabase } from "../src/db/database.ts";
import { brands } from "../src/db/schema.ts";
import { systemClock } from "../src/domain/clock.ts";
import { createGatewayClient } from "../src/gateway/gatewayClient.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createMetrics } from "../src/observability/metrics.ts";
import { createServices } from "../src/runtime/services.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({
  options: {
    brands: { type: "string", default: "200" },
    views: { type: "string", default: "200" },
    cold: { type: "string", default: "5" },
    latency: { type: "string", default: "50" },
  },
});
const BRANDS = Number(args.brands);
const VIEWS = Number(args.views);
const COLD = Number(args.cold);
const LATENCY_MS = Number(args.latency);
const SECRET = "bench-secret-that-is-long-enough-0123456789";
const logger = createLogger({ level: "warn" });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function main() {
  const scratch = await scratchDatabase("poolview");
  const database = openDatabase(scratch.url);
  const simulator = await startSimulator({ seed: "unmetered" });
  const events = new EventBus();
  const gateway = createGatewayClient({
    projectsBaseUrl: simulator.url,
    usersBaseUrl: simulator.url,
    events,
    logger,
  });
  const services = createServices({ db: database.db, clock: systemClock, events, logger, gateway });
  const app = await buildApp({
    logger,
    events,
    metrics: createMetrics(events),
    verifier: hs256Verifier(SECRET),
    services,
    readiness: async () => ({ ready: true, checks: {} }),
  });
  await app.ready();
  const token = await signDevToken(SECRET, { sub: "bench", admin: true });
  const upstreamCalls = () => simulator.simulator.calls.size;

  try {
    const org = await app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${token}` },
      payload: { name: "Bench pool", parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID },
    });
    const orgId = org.json().id as string;
    const now = new Date();
    const subWorkspaceIds: string[] = [];
    for (let index = 0; index < BRANDS; index++) {
      const workspace = await gateway.users.createSubWorkspace(token, UNMETERED_PARENT_WORKSPACE_ID, {
        title: `Bench brand ${index}`,
      });
      subWorkspaceIds.push(workspace.id);
    }
    await database.db.insert(brands).values(
      subWorkspaceIds.map((subWorkspaceId, index) => ({
        orgId,
        name: `Bench brand ${index}`,
        status: "active" as const,
        subWorkspaceId,
        provisioningStatus: "ready" as const,
        createdAt: now,
        updatedAt: now,
      })),
    );
    simulator.simulator.updateSettings({ latencyMs: LATENCY_MS });
    const view = async () => {
      const started = performance.now();
      const answer = await app.inject({
        method: "GET",
        url: `/v2/orgs/${orgId}/serenity/resources`,
        headers: { authorization: `Bearer ${token}` },
      });
      const ms = performance.now() - started;
      if (answer.statusCode !== 200) throw new Error(`view answered ${answer.statusCode}: ${answer.body}`);
      const body = answer.json() as { brands: unknown[]; unattached: unknown[] };
      if (body.brands.length !== BRANDS) throw new Error(`view shows ${body.brands.length} brands`);
      return { ms, entries: body.brands.length + body.unattached.length + 1 };
    };
    const forget = () =>
      database.db.execute(sql`delete from resource_observations where org_id = ${orgId}::uuid`);
    const age = () =>
      database.db.execute(
        sql`update resource_observations set observed_at = observed_at - interval '1 hour' where org_id = ${orgId}::uuid`,
      );

    // Cold: the record emptied before each view.
    const cold: number[] = [];
    let coldCalls = 0;
    let entries = 0;
    for (let round = 0; round < COLD; round++) {
      await forget();
      const before = upstreamCalls();
      const answer = await view();
      cold.push(answer.ms);
      entries = answer.entries;
      coldCalls = upstreamCalls() - before;
    }

    // Warm: every entry fresh (the cold rounds left them so).
    await view();
    const warm: number[] = [];
    const warmBefore = upstreamCalls();
    for (let round = 0; round < VIEWS; round++) warm.push((await view()).ms);
    const warmCalls = upstreamCalls() - warmBefore;

    // Stale: every entry past the max age; the view is served at once, the refresh follows.
    await age();
    const staleBefore = upstreamCalls();
    const stale = await view();
    const callsWhileAnswering = upstreamCalls() - staleBefore;
    const passStarted = performance.now();
    await services.poolView.settled();
    const passMs = performance.now() - passStarted;
    const passCalls = upstreamCalls() - staleBefore;
    const after = upstreamCalls();
    for (let round = 0; round < 20; round++) await view();
    // At 200 brands a paced pass outlasts the max age: views after it may start the next one.
    const callsAfterPass = upstreamCalls() - after;

    const rows = [
      ["cold (record empty)", COLD, cold, coldCalls],
      ["warm (every entry fresh)", VIEWS, warm, warmCalls / VIEWS],
    ] as const;
    console.log(
      `pool view, ${BRANDS} brands (${entries} entries), ${LATENCY_MS} ms upstream latency, ${simulator.url}`,
    );
    console.log("| view | views | p50 ms | p99 ms | upstream calls per view |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    for (const [name, count, samples, calls] of rows) {
      console.log(
        `| ${name} | ${count} | ${percentile(samples, 50).toFixed(1)} | ${percentile(samples, 99).toFixed(1)} | ${calls} |`,
      );
    }
    console.log(
      `| stale (every entry past the max age) | 1 | ${stale.ms.toFixed(1)} | — | ${callsWhileAnswering} before it answered |`,
    );
    const ratio = percentile(cold, 50) / percentile(warm, 50);
    console.log(`\ncold p50 / warm p50: ${ratio.toFixed(0)}×`);
    console.log(
      `background refresh of the stale view: ${passCalls} upstream calls in ${(passMs / 1000).toFixed(1)} s (` +
        `${(passCalls / (passMs / 1000)).toFixed(1)} calls/s); views after it: ${callsAfterPass} calls`,
    );
  } finally {
    await app.close();
    await services.poolView.settled();
    await gateway.close();
    await simulator.close();
    await database.close();
    await scratch.drop();
  }
}

await main();
