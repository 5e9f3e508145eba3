/**
 * Served demand under contention (spec/allocation.md §4): the multi-process workload of
 * test/reliability/allocationMultiProcess.test.ts — two `serenity serve` processes on one database
 * and one simulator (gold pool 13 / 800), 16 concurrent bulk prompt creates of 40 new texts (one
 * model) to one brand — with the cross-process database lease vs the in-process-only lock
 * (test/support/inProcessLockServe.ts, the original design). Rounds alternate between the two.
 *
 *   npx tsx bench/allocation-contention.ts [--rounds 5] [--latency 5]
 *
 * Per contender: prompts served / rejected, metered writes the upstream refused (405), of those how
 * many retryOnQuota recovered (each after a 3 s wait) or gave up on (quotaExceeded), units lost,
 * units stranded at the end (allocation − roundUpToBlock(used + drafted)), median round time.
 */
import { parseArgs } from "node:util";

import { startSimulator } from "../src/simulator/startSimulator.ts";
import {
  DEFAULT_SHAPE,
  prepareOrg,
  type RoundReport,
  runRound,
  type ServeProcess,
  startServe,
} from "../test/support/multiProcessWorkload.ts";
import { median, printTable, scratchDatabase } from "./allocation-support.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    latency: { type: "string", default: "5" },
  },
});
const ROUNDS = Number(args.rounds);
const shape = { ...DEFAULT_SHAPE, latencyMs: Number(args.latency) };

async function main() {
  const database = await scratchDatabase("contention");
  const sim = await startSimulator({ seed: "gold", controls: true });
  const contenders: { name: string; processes: ServeProcess[]; reports: RoundReport[] }[] = [];
  try {
    const common = { databaseUrl: database.url, simulatorUrl: sim.url };
    const inProcess = { ...common, inProcessLock: true };
    const [lease, local] = await Promise.all([
      Promise.all([startServe(common), startServe(common)]),
      Promise.all([startServe(inProcess), startServe(inProcess)]),
    ]);
    contenders.push({ name: "database lease (ours)", processes: lease, reports: [] });
    contenders.push({ name: "in-process lock only", processes: local, reports: [] });
    const org = await prepareOrg(lease[0]!.url);
    for (let round = 0; round < ROUNDS; round++) {
      for (const contender of round % 2 === 0 ? contenders : [...contenders].reverse()) {
        contender.reports.push(
          await runRound(sim.url, contender.processes, org, shape, `${contender.name} ${round}`),
        );
      }
    }
  } finally {
    await Promise.all(contenders.flatMap((c) => c.processes).map((p) => p.stop()));
    await sim.close();
    await database.drop();
  }

  const demand = shape.writes * shape.textsPerWrite;
  const rows = contenders.map(({ name, reports }) => {
    const sum = (pick: (r: RoundReport) => number) => reports.reduce((total, r) => total + pick(r), 0);
    const rejected = sum((r) => Object.values(r.failures).reduce((a, b) => a + b, 0));
    const lost = sum(
      (r) => r.poolBefore.projects - r.poolAfter.projects + (r.poolBefore.prompts - r.poolAfter.prompts),
    );
    const stranded = sum(
      (r) =>
        r.child.prompts.total -
        r.expectedTotals.prompts +
        (r.child.projects.total - r.expectedTotals.projects),
    );
    return [
      name,
      `${sum((r) => r.created)} / ${demand * reports.length}`,
      `${((100 * sum((r) => r.created)) / (demand * reports.length)).toFixed(1)} %`,
      `${rejected}`,
      `${sum((r) => r.refused405)}`,
      `${sum((r) => r.quotaRetries.recovered)}`,
      `${sum((r) => r.quotaRetries.exhausted)}`,
      `${lost}`,
      `${stranded}`,
      `${reports.filter((r) => r.refused405 + r.quotaExceeded > 0).length} / ${reports.length}`,
      median(reports.map((r) => r.elapsedMs)).toFixed(0),
    ];
  });
  console.log(
    `served demand under contention: ${ROUNDS} rounds per contender, ${shape.writes} concurrent bulk creates × ${shape.textsPerWrite} texts, 2 processes, simulator latency ${shape.latencyMs} ms\n`,
  );
  printTable(
    [
      "lock",
      "prompts served",
      "served",
      "rejected",
      "405 refusals",
      "recovered (3 s wait)",
      "quotaExceeded",
      "units lost",
      "units stranded",
      "rounds with a refusal",
      "median round (ms)",
    ],
    rows,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
