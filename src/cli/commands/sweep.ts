import path from "node:path";

import type { Command } from "commander";

import type { Units } from "../../domain/allocation.ts";
import { DEFAULT_CHECKPOINT_FILE } from "../../operations/checkpoint.ts";
import { runSweep, SWEEP_DEFAULTS } from "../../operations/sweep.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { bootstrap, fail } from "../bootstrap.ts";
import {
  floorUnits,
  idList,
  nonNegativeInteger,
  operatorLogger,
  positiveInteger,
  upstreamToken,
} from "../operator/options.ts";
import { formatSweepSummary, sweepProgressDisplay } from "../operator/sweepOutput.ts";

interface SweepCliOptions {
  dryRun: boolean;
  orgIds?: string[];
  brandIds?: string[];
  limit?: number;
  rateLimitMs: number;
  maxConsecutiveErrors: number;
  floor: Units;
  checkpointFile?: string;
  retryFailed: boolean;
  fresh: boolean;
  json: boolean;
  tokenFile?: string;
}

export function registerSweep(program: Command): void {
  program
    .command("sweep")
    .description("one-shot rightsizing: lower every carved sub-workspace to what its usage needs")
    .option("--dry-run", "compute and print targets; no mutating upstream call", false)
    .option("--org-ids <ids>", "only these orgs (comma-separated)", idList)
    .option("--brand-ids <ids>", "only these brands (comma-separated; requires --org-ids)", idList)
    .option("--limit <n>", "at most N sub-workspaces this run (after checkpointed ones)", positiveInteger)
    .option("--rate-limit-ms <ms>", "pause after each item", nonNegativeInteger, SWEEP_DEFAULTS.rateLimitMs)
    .option(
      "--max-consecutive-errors <n>",
      "abort after N unexpected errors in a row",
      positiveInteger,
      SWEEP_DEFAULTS.maxConsecutiveErrors,
    )
    .option(
      "--floor <projects,prompts>",
      "the least each sub-workspace keeps",
      floorUnits,
      SWEEP_DEFAULTS.floor,
    )
    .option("--checkpoint-file <path>", `resume file (default: <data dir>/${DEFAULT_CHECKPOINT_FILE})`)
    .option("--retry-failed", "revisit items the checkpoint records as failed", false)
    .option("--fresh", "ignore an existing checkpoint and start over", false)
    .option("--json", "print a machine-readable report", false)
    .option("--token-file <path>", "read the upstream token from this file (else SERENITY_UPSTREAM_TOKEN)")
    .action(async (options: SweepCliOptions, command: Command) => {
      if (options.brandIds && !options.orgIds) command.error("error: --brand-ids requires --org-ids");
      const { config } = bootstrap();
      const logger = operatorLogger(config);
      const bearer = await upstreamToken(options.tokenFile).catch((error) => fail(logger, error));
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      const display = options.json ? undefined : sweepProgressDisplay(process.stderr);
      try {
        const report = await runSweep(
          { db: runtime.database.db, clock: runtime.clock, logger, allocation: runtime.services.allocation },
          {
            bearer,
            dryRun: options.dryRun,
            orgIds: options.orgIds,
            brandIds: options.brandIds,
            limit: options.limit,
            rateLimitMs: options.rateLimitMs,
            maxConsecutiveErrors: options.maxConsecutiveErrors,
            floor: options.floor,
            checkpointFile: options.checkpointFile
              ? path.resolve(options.checkpointFile)
              : path.join(config.dataDir, DEFAULT_CHECKPOINT_FILE),
            retryFailed: options.retryFailed,
            fresh: options.fresh,
            onStart: (total) => display?.start(total),
            onItem: (item, progress) => display?.item(item, progress),
          },
        );
        display?.stop();
        process.stdout.write(
          options.json ? `${JSON.stringify(report, null, 2)}\n` : formatSweepSummary(report),
        );
        if (report.aborted || report.unexpectedErrors > 0) process.exitCode = 1;
      } catch (error) {
        display?.stop();
        await runtime.close();
        fail(logger, error);
      }
      await runtime.close();
    });
}
