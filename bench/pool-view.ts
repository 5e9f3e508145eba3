/**
 * The pool view (`GET …/serenity/resources`) at 200 brands, answered from the resources record
 * (ADR 0020), side by side in one run: a **cold** view (the record emptied before each: every
 * workspace read upstream, four at once), a **warm** view (every entry younger than
 * SERENITY_POOL_VIEW_MAX_AGE_MS: no upstream call), and a **stale** view (every entry past the max
 * age: served at once, refreshed in the background) with the cost of that background pass. Each
 * round runs all three — one cold view, `--views` ÷ rounds warm ones, one stale view and its pass
 * — in an order rotating round by round, so no kind always runs first on a machine whose load moves.
 *
 *   npx tsx bench/pool-view.ts [--brands 200] [--views 200] [--rounds 5] [--latency 50]
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
    rounds: { type: "string", default: "5" },
    latency: { type: "string", default: "50" },
  },
});
const BRANDS = Number(args.brands);
const VIEWS = Number(args.views);
const ROUNDS = Math.max(1, Number(args.rounds));
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

    // Every kind needs the record in a known state first: cold empties it, stale ages it, warm
    // needs it filled and fresh (a first view fills it; cold's view and stale's pass leave it so).
    const cold: number[] = [];
    const coldCalls: number[] = [];
    const warm: number[] = [];
    let warmCalls = 0;
    const stale: number[] = [];
    const staleCallsWhileAnswering: number[] = [];
    const passes: { calls: number; ms: number }[] = [];
    let entries = 0;
    const kinds = {
      cold: async () => {
        await forget();
        const before = upstreamCalls();
        const answer = await view();
        cold.push(answer.ms);
        entries = answer.entries;
        coldCalls.push(upstreamCalls() - before);
      },
      warm: async () => {
        const before = upstreamCalls();
        for (let i = 0; i < Math.ceil(VIEWS / ROUNDS); i++) warm.push((await view()).ms);
        warmCalls += upstreamCalls() - before;
      },
      // Every entry past the max age: the view is served at once, the refresh follows.
      stale: async () => {
        await age();
        const before = upstreamCalls();
        stale.push((await view()).ms);
        staleCallsWhileAnswering.push(upstreamCalls() - before);
        const passStarted = performance.now();
        await services.poolView.settled();
        passes.push({ calls: upstreamCalls() - before, ms: performance.now() - passStarted });
      },
    };
    await view();
    const order = ["cold", "warm", "stale"] as const;
    for (let round = 0; round < ROUNDS; round++) {
      const shift = round % order.length;
      for (const kind of [...order.slice(shift), ...order.slice(0, shift)]) await kinds[kind]();
    }

    console.log(
      `pool view, ${BRANDS} brands (${entries} entries), ${LATENCY_MS} ms upstream latency, ${ROUNDS} rounds in rotating order, ${simulator.url}`,
    );
    console.log("| view | views | p50 ms | p99 ms | upstream calls per view |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    console.log(
      `| cold (record empty) | ${cold.length} | ${percentile(cold, 50).toFixed(1)} | ${percentile(cold, 99).toFixed(1)} | ${coldCalls.join(", ")} |`,
    );
    console.log(
      `| warm (every entry fresh) | ${warm.length} | ${percentile(warm, 50).toFixed(1)} | ${percentile(warm, 99).toFixed(1)} | ${warmCalls / warm.length} |`,
    );
    console.log(
      `| stale (every entry past the max age) | ${stale.length} | ${percentile(stale, 50).toFixed(1)} | ${percentile(stale, 99).toFixed(1)} | ${staleCallsWhileAnswering.join(", ")} before it answered |`,
    );
    const ratio = percentile(cold, 50) / percentile(warm, 50);
    console.log(
      `\ncold p50 / warm p50: ${ratio.toFixed(0)}×; stale p50 / warm p50: ${(percentile(stale, 50) / percentile(warm, 50)).toFixed(2)}`,
    );
    console.log(
      `background refresh of each stale view: ${passes
        .map(
          (pass) =>
            `${pass.calls} calls in ${(pass.ms / 1000).toFixed(1)} s (${(pass.calls / (pass.ms / 1000)).toFixed(1)} / s)`,
        )
        .join("; ")}`,
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
