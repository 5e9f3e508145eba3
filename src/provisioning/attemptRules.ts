import { durationMs, type FlagSource } from "../config/flags.ts";

/**
 * Pure rules of the brand provisioning attempt (spec/provisioning.md §3–§4): the concurrency
 * guard's verdict and the fixed sentences a failed attempt may carry. No I/O here.
 */

/** Ten minutes: an attempt untouched for longer is presumed dead (its worker crashed or was lost). */
export const DEFAULT_PROVISIONING_STALE_MS = 10 * 60_000;

/** `SERENITY_PROVISIONING_STALE_MS`, read per use so tests and operators can change it live. */
export function provisioningStaleMs(env: FlagSource = process.env): number {
  return durationMs("SERENITY_PROVISIONING_STALE_MS", DEFAULT_PROVISIONING_STALE_MS, env);
}

/**
 * The only sentences `provisioning_error` may hold. Transitions take a reason key, never free
 * text, so an upstream body or a raw exception message can never reach the column or a response.
 */
export const PROVISIONING_ERROR_SENTENCES = {
  upstreamFailed: "Workspace creation failed upstream",
  didNotSettle: "Workspace did not settle in time",
  stale: "Provisioning went stale",
  deactivated: "Deactivated while provisioning",
  unexpected: "Unexpected error while provisioning",
  couldNotStart: "Could not start provisioning",
  claimedElsewhere: "Workspace is already used by another brand",
} as const;

/** SERENITY_PROVISION_SETTLE_BUDGET_MS: how long an asynchronous attempt waits for its workspace. */
export const DEFAULT_PROVISION_SETTLE_BUDGET_MS = 10 * 60_000;

export function provisionSettleBudgetMs(env: FlagSource = process.env): number {
  return durationMs("SERENITY_PROVISION_SETTLE_BUDGET_MS", DEFAULT_PROVISION_SETTLE_BUDGET_MS, env);
}

export type ProvisioningFailureReason = keyof typeof PROVISIONING_ERROR_SENTENCES;

export function provisioningErrorSentence(reason: ProvisioningFailureReason): string {
  return PROVISIONING_ERROR_SENTENCES[reason];
}

export function isProvisioningErrorSentence(value: string): boolean {
  return (Object.values(PROVISIONING_ERROR_SENTENCES) as string[]).includes(value);
}

export type ProvisioningStatus = "pending" | "ready" | "failed";

/**
 * - `proceed`: no attempt, or the last one finished (ready or failed): a new path may start.
 * - `inProgress`: a live attempt owns the brand → 409 `semrushProvisioningInProgress`.
 * - `stale`: an attempt is `pending` but untouched past the threshold → fail it (T5 "went stale"), then proceed.
 */
export type ConcurrencyVerdict = "proceed" | "inProgress" | "stale";

export interface AttemptSnapshot {
  provisioningStatus: ProvisioningStatus | null;
  /** The brand's `updatedAt`: every attempt transition refreshes it, so it dates the last progress. */
  updatedAt: Date | string | null | undefined;
}

/**
 * The concurrency guard run before T1 and before every synchronous path that could create a
 * workspace. An unreadable timestamp counts as fresh: tearing down a live attempt on bad data
 * is worse than asking the caller to retry later. A timestamp in the future (clock skew between
 * processes) has a negative age and is therefore fresh too.
 */
export function concurrencyVerdict(
  brand: AttemptSnapshot,
  now: Date,
  staleMs: number = DEFAULT_PROVISIONING_STALE_MS,
): ConcurrencyVerdict {
  if (brand.provisioningStatus !== "pending") return "proceed";
  const touched = toMillis(brand.updatedAt);
  const current = now.getTime();
  if (touched === undefined || !Number.isFinite(current)) return "inProgress";
  return current - touched >= staleMs ? "stale" : "inProgress";
}

function toMillis(value: Date | string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const millis = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isFinite(millis) ? millis : undefined;
}
