import { type Command, InvalidArgumentError } from "commander";

import { openRuntime } from "../../runtime/runtime.ts";
import { startWorker } from "../../runtime/startWorker.ts";
import { startTracing } from "../../runtime/tracing.ts";
import { bootstrap, fail, onShutdown } from "../bootstrap.ts";

function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0)
    throw new InvalidArgumentError("must be a positive integer");
  return Number(value);
}

export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description("run the job worker only (scale these out; every worker also reconciles stalled jobs)")
    .option(
      "--concurrency <n>",
      "jobs run at once in this process (default SERENITY_WORKER_CONCURRENCY, else 10)",
      positiveInteger,
    )
    .option(
      "--shutdown-grace-ms <ms>",
      "how long a stop waits for running jobs before releasing them",
      positiveInteger,
      10_000,
    )
    .action(async (options: { concurrency?: number; shutdownGraceMs: number }) => {
      const { config, logger } = bootstrap();
      const tracing = await startTracing("worker", logger);
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      const worker = await startWorker(runtime, {
        concurrency: options.concurrency,
        shutdownGraceMs: options.shutdownGraceMs,
      }).catch(async (error) => {
        await runtime.close();
        return fail(logger, error);
      });
      onShutdown(
        logger,
        async () => {
          await worker.stop();
          await runtime.close();
          await tracing.shutdown();
        },
        {
          graceMs: config.shutdownGraceMs,
          force: () => runtime.forceClose(),
        },
      );
    });
}
