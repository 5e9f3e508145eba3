/**
 * The per-request budget of retryOnQuota (spec/allocation.md §6): 9 s of retry waits shared by
 * every wrap site of one request, so a request with several guarded writes cannot spend 9 s on
 * each. Create one per request and pass it to every guard of that request.
 */
export interface QuotaRetryBudget {
  readonly remainingMs: number;
  /** Reserves `ms` of waiting; `false` (nothing reserved) when the budget cannot cover it. */
  take(ms: number): boolean;
  /** Charges time already spent inside the budget (the safety net's metering read), down to 0. */
  spend(ms: number): void;
}

export const QUOTA_RETRY_BUDGET_MS = 9_000;

export function createQuotaRetryBudget(totalMs = QUOTA_RETRY_BUDGET_MS): QuotaRetryBudget {
  let remaining = totalMs;
  return {
    get remainingMs() {
      return remaining;
    },
    take(ms) {
      if (ms > remaining) return false;
      remaining -= ms;
      return true;
    },
    spend(ms) {
      remaining = Math.max(0, remaining - Math.max(0, ms));
    },
  };
}
