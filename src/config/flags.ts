/**
 * Feature flags and per-use settings. Each is read from the environment at the moment of use
 * (never cached at boot), so flipping one takes effect without a restart and tests can toggle it.
 */

export interface FlagWarning {
  variable: string;
  value: string;
}

export type FlagSource = Record<string, string | undefined>;

function isExactlyTrue(value: string | undefined): boolean {
  return value === "true";
}

/** SERENITY_DYNAMIC_ALLOCATION: on only for the exact string `true` (spec/allocation.md §2). */
export function dynamicAllocationEnabled(env: FlagSource = process.env): boolean {
  return isExactlyTrue(env.SERENITY_DYNAMIC_ALLOCATION);
}

/**
 * SERENITY_ALLOCATION_REBALANCE: near pool exhaustion, reclaim slack from sibling sub-workspaces
 * before refusing (spec/allocation.md §11 step 2). On unless exactly `false` (case-insensitive):
 * the conservative rollout path turns it off per request, without a restart.
 */
export function allocationRebalanceEnabled(env: FlagSource = process.env): boolean {
  return env.SERENITY_ALLOCATION_REBALANCE?.trim().toLowerCase() !== "false";
}

/**
 * SERENITY_ALLOCATION_EXACT_TOPUP: a comparison switch for benchmarks and tests. `false` keeps every top-up block-rounded (the design before
 * spec/allocation.md §11 step 1); anything else (including unset) allows the exact retry.
 */
export function exactTopUpsEnabled(env: FlagSource = process.env): boolean {
  return env.SERENITY_ALLOCATION_EXACT_TOPUP?.trim().toLowerCase() !== "false";
}

/**
 * SERENITY_MARKET_TAG_SEEDING: a market's creation makes Serenity's tag roots and known values, so
 * a prompt write into a fresh market does not (issue 36, item 6). On unless exactly `false`
 * (case-insensitive): a comparison switch for benchmarks, like SERENITY_ALLOCATION_EXACT_TOPUP.
 */
export function marketTagSeedingEnabled(env: FlagSource = process.env): boolean {
  return env.SERENITY_MARKET_TAG_SEEDING?.trim().toLowerCase() !== "false";
}

/** SERENITY_ASYNC_PROVISIONING: the master switch for `async: true`, on unless exactly `false`. */
export function asyncProvisioningEnabled(env: FlagSource = process.env): boolean {
  return env.SERENITY_ASYNC_PROVISIONING?.trim().toLowerCase() !== "false";
}

/** SERENITY_ASYNC_PROMPT_GEN: on only for `true`, case-insensitive (spec/generation.md §2). */
export function asyncPromptGenerationEnabled(env: FlagSource = process.env): boolean {
  return env.SERENITY_ASYNC_PROMPT_GEN?.trim().toLowerCase() === "true";
}

function positiveIntegerOrUndefined(
  variable: string,
  env: FlagSource,
  warn: (warning: FlagWarning) => void,
): number | undefined {
  const value = env[variable];
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0) {
    warn({ variable, value });
    return undefined;
  }
  return Number(value);
}

/** Per-brand ceilings: positive integers only; a malformed value is ignored with a warning. */
export function brandAiCeiling(
  env: FlagSource = process.env,
  warn: (warning: FlagWarning) => void = () => {},
): { projects: number | undefined; prompts: number | undefined } {
  return {
    projects: positiveIntegerOrUndefined("SERENITY_BRAND_AI_CEILING_PROJECTS", env, warn),
    prompts: positiveIntegerOrUndefined("SERENITY_BRAND_AI_CEILING_PROMPTS", env, warn),
  };
}

/** A malformed duration variable: its name, and what is wrong with the value (never the value). */
export class InvalidDuration extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = "InvalidDuration";
  }
}

/** The longest delay a Node timer takes (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * A whole number of milliseconds from the environment: unset or blank → `fallback`; anything but
 * digits (a sign, a unit, a fraction) throws naming the variable — at boot, loadConfig checks every
 * duration variable this way, so a typo fails the start instead of silently running on a default.
 * `0` means the fallback too, unless `zero: "allowed"` (a period where 0 turns a loop off, a grace
 * where 0 means "at once").
 */
export function durationMs(
  variable: string,
  fallback: number,
  env: FlagSource = process.env,
  options: { zero?: "allowed" | "fallback" } = {},
): number {
  const value = env[variable]?.trim();
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value)) throw new InvalidDuration(variable, "must be a whole number of milliseconds");
  const parsed = Number(value);
  // Timers take at most 2^31 − 1 ms; Node runs a longer interval every millisecond instead.
  if (parsed > MAX_TIMER_MS)
    throw new InvalidDuration(variable, `must be at most ${MAX_TIMER_MS} ms (24.8 days)`);
  if (parsed === 0 && options.zero !== "allowed") return fallback;
  return parsed;
}
