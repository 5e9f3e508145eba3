import { readFile } from "node:fs/promises";

import { InvalidArgumentError } from "commander";

import type { Config } from "../../config/env.ts";
import { parseOperatorTokens } from "../../config/operatorTokens.ts";
import type { Units } from "../../domain/allocation.ts";
import { createLogger, type Logger } from "../../observability/logger.ts";

/**
 * Option parsers and shared plumbing of the operator tools (`sweep`, `audit`). A bad number is a
 * commander error (one line, exit 1), never a silent fallback to the default.
 */

export function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("must be a non-negative integer");
  return Number(value);
}

export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) <= 0)
    throw new InvalidArgumentError("must be a positive integer");
  return Number(value);
}

export function idList(value: string): string[] {
  const ids = value
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
  if (ids.length === 0) throw new InvalidArgumentError("must be a comma-separated list of ids");
  const invalid = ids.find((id) => !/^[0-9a-f-]{36}$/i.test(id));
  if (invalid !== undefined) throw new InvalidArgumentError(`"${invalid}" is not a UUID`);
  return ids;
}

/** `projects,prompts`, e.g. `1,100`. */
export function floorUnits(value: string): Units {
  const match = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(value);
  if (!match) throw new InvalidArgumentError("must be two non-negative integers: projects,prompts");
  return { projects: Number(match[1]), prompts: Number(match[2]) };
}

/**
 * The operator's upstream bearer: `--token-file` wins over SERENITY_UPSTREAM_TOKEN. It is never
 * printed, not even in the error that says it is missing.
 */
export async function upstreamToken(tokenFile: string | undefined): Promise<string> {
  const token = tokenFile
    ? (
        await readFile(tokenFile, "utf8").catch(() => {
          throw new Error(`cannot read the token file ${tokenFile}`);
        })
      ).trim()
    : // Several tokens (docs/decisions/0044): an operator tool runs on one account, the first.
      (parseOperatorTokens(process.env.SERENITY_UPSTREAM_TOKEN)[0] ?? "");
  if (token === "") {
    throw new Error("no upstream token: set SERENITY_UPSTREAM_TOKEN or pass --token-file");
  }
  return token;
}

/**
 * Operator tools write their report to stdout, so logs go to stderr; below `warn` only when
 * LOG_LEVEL asks for it (per-item info lines would drown the progress display).
 */
export function operatorLogger(config: Config): Logger {
  const level = process.env.LOG_LEVEL ? config.logLevel : "warn";
  return createLogger({ level, destination: process.stderr });
}
