import type { FlagSource } from "../config/flags.ts";

export type AllocationLockMode = "database" | "in-process";

/**
 * SERENITY_ALLOCATION_LOCK_MODE is a test-only switch: `in-process` selects the single-process
 * lock so the multi-process test can demonstrate that it does not serialise across processes.
 * Anything else (including unset) is the cross-process database lease.
 */
export function allocationLockMode(env: FlagSource = process.env): AllocationLockMode {
  return env.SERENITY_ALLOCATION_LOCK_MODE === "in-process" ? "in-process" : "database";
}
