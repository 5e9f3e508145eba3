import { createRequire } from "node:module";

import pino, { type Logger, type LoggerOptions } from "pino";
import type { PinoPretty } from "pino-pretty";

import { scrubDatabaseError } from "./databaseErrorScrub.ts";
import type { LogFormatChoice } from "./logFormat.ts";

export type { Logger } from "pino";

/**
 * Every path that may carry a secret, redacted centrally. Tokens, sealed credentials, cookies and
 * authorization headers never reach a log line, whatever object they arrive in.
 */
export const REDACTED_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
  "res.headers['set-cookie']",
  "cookie",
  "*.cookie",
  "token",
  "*.token",
  "accessToken",
  "*.accessToken",
  "bearer",
  "*.bearer",
  "sealed",
  "*.sealed",
  "sealedToken",
  "*.sealedToken",
  "password",
  "*.password",
  "secret",
  "*.secret",
  "upstreamToken",
  "*.upstreamToken",
  "upstreamTokens",
  "*.upstreamTokens",
];

/**
 * Database errors carry the query's parameters (Drizzle's `params`, its message "… params: …", the
 * values PostgreSQL echoes in `detail` or a data exception's message): user input, or sealed
 * credential bytes. The statement stays in the log; the values do not (databaseErrorScrub.ts).
 */
function errorWithoutQueryParams(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return scrubDatabaseError(pino.stdSerializers.err(error) as unknown as Record<string, unknown>);
}

/**
 * Human-readable lines for a person at a terminal: time, level, message, then the fields on the
 * same line. Written synchronously, as pino's own destination is, so the last lines before an exit
 * are not lost. Redaction and serializers run before, exactly as for JSON. Loaded only when asked
 * for: `serve`, `worker` and every JSON command start without it.
 */
function prettyStream(colour: boolean, destination: number | pino.DestinationStream): pino.DestinationStream {
  const { build } = createRequire(import.meta.url)("pino-pretty") as { build: typeof PinoPretty };
  return build({
    colorize: colour,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,service",
    singleLine: true,
    sync: true,
    destination: destination as number,
  });
}

export function createLogger(
  options: {
    level?: string;
    destination?: pino.DestinationStream;
    /** Default: JSON lines. */
    format?: LogFormatChoice;
  } = {},
): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level ?? "info",
    base: { service: "serenity" },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    // `error` too: a line that names its error so is scrubbed the same way.
    serializers: { err: errorWithoutQueryParams, error: errorWithoutQueryParams },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (options.format?.format === "pretty")
    return pino(loggerOptions, prettyStream(options.format.colour, options.destination ?? 1));
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions);
}

/** Upstream bodies go to logs only, truncated (spec/operations.md §4). */
export function truncateForLog(body: unknown, limit = 2048): string {
  const text = typeof body === "string" ? body : (JSON.stringify(body) ?? "");
  return text.length > limit ? `${text.slice(0, limit)}…[truncated ${text.length - limit} chars]` : text;
}
