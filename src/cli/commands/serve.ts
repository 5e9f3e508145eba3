import type { Command } from "commander";

import { createApiApp, listen } from "../../runtime/httpServer.ts";
import { startProbeServer } from "../../runtime/probeServer.ts";
import { openRuntimeWithSimulator, type SimulatorChoices } from "../../runtime/runtimeWithSimulator.ts";
import { startWorker } from "../../runtime/startWorker.ts";
import { startTracing } from "../../runtime/tracing.ts";
import { startUpstreamHealth } from "../../runtime/upstreamHealth.ts";
import { bootstrap, fail, MIGRATE_OPTION_HELP, migrateOnStart, onShutdown } from "../bootstrap.ts";

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("run the API only (scale these out next to `serenity worker`)")
    .option("--with-worker", "also run jobs in this process", false)
    .option("--migrate", MIGRATE_OPTION_HELP, false)
    .action((options: { withWorker: boolean; migrate: boolean }) => serve(options));
}

/**
 * `serenity serve`. `replaced` is the composition's injection point for a test entry that runs the
 * same process with one part replaced (test/support/inProcessLockServe.ts); the command passes none.
 */
export async function serve(
  options: { withWorker: boolean; migrate: boolean },
  replaced: Pick<SimulatorChoices, "allocationLockProvider"> = {},
): Promise<void> {
  const { config, logger } = bootstrap();
  const tracing = await startTracing("serve", logger);
  const serving = await openRuntimeWithSimulator(config, logger, {
    migrate: migrateOnStart(config, options.migrate),
    ...replaced,
  }).catch((error) => fail(logger, error));
  const { runtime } = serving;
  const worker = options.withWorker ? await startWorker(runtime) : undefined;
  const app = await createApiApp(runtime);
  const stopUpstreamHealth = startUpstreamHealth(runtime);
  const url = await listen(app, config.port, config.host).catch(async (error) => {
    await worker?.stop();
    await serving.close();
    return fail(logger, error);
  });
  // /metrics (and the probes) apart from the API when SERENITY_METRICS_PORT says where.
  const metricsPort = config.metricsPort;
  const probes =
    metricsPort === undefined
      ? undefined
      : await startProbeServer(runtime, { port: metricsPort, host: config.host }).catch(async (error) => {
          await app.close();
          await worker?.stop();
          await serving.close();
          return fail(logger, error);
        });
  if (probes)
    logger.info({ url: probes.url }, `metrics and probes at ${probes.url} (/metrics, /healthz, /readyz)`);
  logger.info(
    { url, simulator: serving.simulatorUrl, withWorker: options.withWorker },
    "serenity API listening",
  );
  onShutdown(
    logger,
    async () => {
      stopUpstreamHealth();
      // Side by side, so their graces overlap inside SERENITY_SHUTDOWN_GRACE_MS instead of adding up.
      await Promise.all([app.close(), worker?.stop()]);
      await probes?.close();
      await serving.close();
      await tracing.shutdown();
    },
    {
      graceMs: config.shutdownGraceMs,
      force: () => serving.forceClose(),
    },
  );
}
