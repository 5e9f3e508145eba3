import { type Command, InvalidArgumentError } from "commander";

import { type ProbeServer, startProbeServer } from "../../runtime/probeServer.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { startWorker } from "../../runtime/startWorker.ts";
import { startTracing } from "../../runtime/tracing.ts";
import { bootstrap, fail, MIGRATE_OPTION_HELP, migrateOnStart, onShutdown } from "../bootstrap.ts";

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
    .option("--migrate", MIGRATE_OPTION_HELP, false)
    .action(async (options: { concurrency?: number; shutdownGraceMs: number; migrate: boolean }) => {
      const { config, logger } = bootstrap();
      const tracing = await startTracing("worker", logger);
      const runtime = await openRuntime(config, logger, {
        migrate: migrateOnStart(config, options.migrate),
      }).catch((error) => fail(logger, error));
      const worker = await startWorker(runtime, {
        concurrency: options.concurrency,
        shutdownGraceMs: options.shutdownGraceMs,
      }).catch(async (error) => {
        await runtime.close();
        return fail(logger, error);
      });
      // Its own port for Kubernetes probes and scraping (SERENITY_WORKER_PORT; `off` = none).
      const probePort = config.worker.probePort;
      let probes: ProbeServer | undefined;
      if (probePort !== undefined) {
        probes = await startProbeServer(runtime, { port: probePort, host: config.host }, () => ({
          worker: worker.running,
        })).catch(async (error) => {
          await worker.stop();
          await runtime.close();
          return fail(logger, error);
        });
        logger.info({ url: probes.url }, `worker probes at ${probes.url} (/healthz, /readyz, /metrics)`);
      }
      onShutdown(
        logger,
        async () => {
          // Stopping first turns /readyz to 503 while running jobs finish; the port closes last.
          await worker.stop();
          await probes?.close();
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
