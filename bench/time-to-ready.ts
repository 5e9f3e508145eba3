/**
 * Time to a ready sub-workspace (SPEC §7: within max(1 s, 25 %) of the upstream's settle time):
 * our requeue ladder vs the original 5/10/20/40/80 s ladder, side by side in one run.
 *
 * The simulator runs in time mode with settle times of 2, 5 and 12 s. For each settle time, the
 * same number of brands is created asynchronously through each ladder at once (each ladder has
 * its own services, job queue and worker, over one database and one simulator), and the time from
 * the accepted request to the brand reading `ready` is measured. Bounded: about 40 s in all.
 *
 *   npx tsx bench/time-to-ready.ts [--brands 3]
 *
 * Uses DATABASE_URL's server when set (a scratch database is created and dropped), else an
 * embedded PostgreSQL in a temporary directory.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { eq } from "drizzle-orm";

import type { Principal } from "../src/auth/principal.ts";
import { signDevToken } from "../src/auth/tokenVerifier.ts";
import { openDatabase } from "../src/db/database.ts";
import { brands } from "../src/db/schema.ts";
import { systemClock } from "../src/domain/clock.ts";
import { nextPollDelayMs } from "../src/domain/requeueLadder.ts";
import { createGatewayClient } from "../src/gateway/gatewayClient.ts";
import { createPgBossQueue } from "../src/jobs/queue.ts";
import { JobWorker } from "../src/jobs/worker.ts";
import { EventBus } from "../src/observability/events.ts";
import { createLogger } from "../src/observability/logger.ts";
import { createServices } from "../src/runtime/services.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { scratchDatabase } from "./support/scratchDatabase.ts";

const { values: args } = parseArgs({ options: { brands: { type: "string", default: "3" } } });
const BRANDS = Number(args.brands);
const SETTLES_MS = [2_000, 5_000, 12_000];
const logger = createLogger({ level: "warn" });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The previous system's requeue ladder, the baseline this benchmark compares ours with. */
const ORIGINAL_LADDER_MS = [5_000, 10_000, 20_000, 40_000, 80_000];

/**
 * The original ladder as a delay function of the time since the create: hop k waits
 * ORIGINAL_LADDER_MS[k]. The hop index is recovered from the elapsed time (a hop runs a little
 * after its nominal time, hence the half-second tolerance).
 */
function originalDelayMs(elapsedMs: number): number {
  let at = 0;
  for (const step of ORIGINAL_LADDER_MS) {
    if (elapsedMs < at + step - 500) return step;
    at += step;
  }
  return ORIGINAL_LADDER_MS.at(-1)!;
}

const LADDERS = { ours: nextPollDelayMs, original: originalDelayMs } as const;
type LadderName = keyof typeof LADDERS;

async function main() {
  const scratch = await scratchDatabase("ready");
  const url = scratch.url;
  const database = openDatabase(url, { max: 20 });
  const simulator = await startSimulator({ seed: "unmetered", controls: true });
  const control = (body: unknown) =>
    fetch(`${simulator.url}/__sim/settings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const events = new EventBus();
  const gateway = createGatewayClient({
    projectsBaseUrl: simulator.url,
    usersBaseUrl: simulator.url,
    events,
    logger,
    clock: systemClock,
  });
  const credentialKey = randomBytes(32);
  const variants = Object.fromEntries(
    (Object.keys(LADDERS) as LadderName[]).map((ladder) => {
      const queue = createPgBossQueue({ pool: database.pool, logger, name: `bench-ready-${ladder}` });
      const services = createServices({
        db: database.db,
        clock: systemClock,
        events,
        logger,
        credentialKey,
        gateway,
        jobQueue: queue,
        provisioning: { nextPollDelayMs: LADDERS[ladder] },
      });
      const worker = new JobWorker(
        {
          db: database.db,
          clock: systemClock,
          logger,
          events,
          registry: services.jobs.registry,
          queue,
          credentials: services.jobs.credentials,
        },
        { listen: false, reconcileIntervalMs: 0, idleWaitMs: 20, concurrency: 10 },
      );
      return [ladder, { services, worker }];
    }),
  ) as Record<LadderName, { services: ReturnType<typeof createServices>; worker: JobWorker }>;

  const adminPrincipal: Principal = { sub: "bench", orgIds: [], isAdmin: true, bearer: "unused" };
  const org = await variants.ours.services.orgs.create(adminPrincipal, {
    name: "Bench org",
    parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID,
  });
  const bearer = await signDevToken("bench-secret-long-enough-0123456789-abcdef", {
    sub: "bench-user",
    orgs: [org.id],
  });
  const user: Principal = { sub: "bench-user", orgIds: [org.id], isAdmin: false, bearer };
  for (const { worker } of Object.values(variants)) await worker.start();

  async function timeToReady(ladder: LadderName, settleMs: number, index: number): Promise<number> {
    const outcome = await variants[ladder].services.brandLifecycle.createBrand(
      user,
      org.id,
      {
        name: `Ready ${ladder} ${settleMs} ${index}`,
        domain: "brand.example",
        semrushMarket: { market: "US", languageCode: "en" },
        async: true,
      },
      { requestId: undefined },
    );
    if (!("accepted" in outcome)) throw new Error("expected an accepted (202) create");
    const accepted = performance.now();
    const brandId = outcome.accepted.brand.id;
    for (const deadline = accepted + 60_000; performance.now() < deadline; await sleep(25)) {
      const [row] = await database.db.select().from(brands).where(eq(brands.id, brandId));
      if (row?.provisioningStatus === "ready") return performance.now() - accepted;
      if (row?.provisioningStatus === "failed") throw new Error(`brand ${brandId} failed`);
    }
    throw new Error("not ready within 60 s");
  }

  const rows: string[] = [];
  const started = performance.now();
  for (const settleMs of SETTLES_MS) {
    await control({ settleMode: "time", settleMs });
    const runs = await Promise.all(
      (Object.keys(LADDERS) as LadderName[]).flatMap((ladder) =>
        Array.from({ length: BRANDS }, (_, index) =>
          timeToReady(ladder, settleMs, index).then((ms) => ({ ladder, ms })),
        ),
      ),
    );
    const mean = (ladder: LadderName) => {
      const times = runs.filter((run) => run.ladder === ladder).map((run) => run.ms);
      return times.reduce((sum, ms) => sum + ms, 0) / times.length;
    };
    const ours = mean("ours");
    const original = mean("original");
    const allowance = Math.max(1_000, 0.25 * settleMs);
    rows.push(
      `| ${settleMs / 1000} s | ${(ours / 1000).toFixed(2)} s | ${((ours - settleMs) / 1000).toFixed(2)} s | ` +
        `${(ours / settleMs).toFixed(2)} | ${(original / 1000).toFixed(2)} s | ${((original - settleMs) / 1000).toFixed(2)} s | ` +
        `${(original / settleMs).toFixed(2)} | ${(allowance / 1000).toFixed(2)} s |`,
    );
  }
  const totalSeconds = (performance.now() - started) / 1000;

  console.log(
    `\nTime from the accepted (202) create to a ready brand, mean of ${BRANDS} brands per cell (${totalSeconds.toFixed(0)} s in all):\n`,
  );
  console.log(
    "| settle | ours | overshoot | ratio | original 5/10/20/40/80 s | overshoot | ratio | SPEC §7 allowance |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const row of rows) console.log(row);

  for (const { worker } of Object.values(variants)) await worker.stop();
  await gateway.close();
  await simulator.close();
  await database.close();
  await scratch.drop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
