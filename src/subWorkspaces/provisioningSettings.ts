import { durationMs, type FlagSource } from "../config/flags.ts";
import {
  DEFAULT_PROVISION_SETTLE_BUDGET_MS,
  DEFAULT_PROVISIONING_STALE_MS,
} from "../domain/provisioningAttempt.ts";

/** Provisioning's settings, read per use so that tests and operators can change them live. */

/** `SERENITY_PROVISIONING_STALE_MS`: a `pending` attempt untouched this long is stale. */
export function provisioningStaleMs(env: FlagSource = process.env): number {
  return durationMs("SERENITY_PROVISIONING_STALE_MS", DEFAULT_PROVISIONING_STALE_MS, env);
}

/** `SERENITY_PROVISION_SETTLE_BUDGET_MS`: how long an asynchronous attempt waits for its workspace. */
export function provisionSettleBudgetMs(env: FlagSource = process.env): number {
  return durationMs("SERENITY_PROVISION_SETTLE_BUDGET_MS", DEFAULT_PROVISION_SETTLE_BUDGET_MS, env);
}

/** `SERENITY_SYNC_SETTLE_BUDGET_MS` (boot config `syncSettleBudgetMs`) when the caller passes none. */
export const DEFAULT_SYNC_SETTLE_BUDGET_MS = 10_000;
