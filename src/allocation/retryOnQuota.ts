import { ServiceError } from "../domain/errors.ts";
import type { AllocationDeps } from "./allocationDeps.ts";
import type { QuotaRetryBudget } from "./quotaRetryBudget.ts";

/** Retries after the first metered-quota 405, each preceded by this wait (spec/allocation.md §6). */
export const QUOTA_RETRY_ATTEMPTS = 3;
export const QUOTA_RETRY_INTERVAL_MS = 3_000;

export interface RetryOnQuotaContext {
  orgId: string;
  requestId: string | null;
  budget: QuotaRetryBudget;
  /**
   * `undefined` when allocation is not guarding this write (flag off, or a flat brand): a metered
   * 405 then maps straight to quotaExceeded. Otherwise the ensure to run once after the first
   * 405, because usage may have been read stale-low (e.g. just after a publish). It answers
   * `notGuarded` when it finds allocation has nothing to do after all (an unmetered parent read
   * again, spec/allocation.md §13): the 405 then maps to quotaExceeded as if unguarded.
   */
  ensure: (() => Promise<AfterQuotaRejection>) | undefined;
}

/** What the ensure after a metered 405 decided: top-up done, retry — or allocation does not apply. */
export type AfterQuotaRejection = "retry" | "notGuarded";

/**
 * Wraps one guarded write. A metered-quota 405 runs the ensure once, then retries up to 3 times,
 * 3 s apart, while the request's shared 9 s budget lasts (the waits cover the upstream's
 * enforcement lag after a top-up). Outcomes, counted per call site: `recovered`, `exhausted`
 * (→ quotaExceeded) and `abandoned` (a non-quota error, including one from `ensure`, propagates).
 */
export async function retryOnQuota<T>(
  deps: Pick<AllocationDeps, "clock" | "events" | "logger" | "upstream">,
  context: RetryOnQuotaContext,
  callSite: string,
  write: () => Promise<T>,
): Promise<T> {
  const isQuota = (error: unknown) => deps.upstream.failureKind(error) === "meteredQuota";
  const log = deps.logger.child({ requestId: context.requestId, orgId: context.orgId, callSite });
  const exhausted = (cause: unknown, counted: boolean) => {
    if (counted) deps.events.emit("allocation.quotaRetry", { callSite, outcome: "exhausted" });
    deps.events.emit("allocation.rejection", { orgId: context.orgId, reason: "quotaExceeded" });
    return new ServiceError("quotaExceeded", { cause });
  };

  let lastQuotaError: unknown;
  try {
    return await write();
  } catch (error) {
    if (!isQuota(error)) throw error;
    if (context.ensure === undefined) {
      log.info("allocation: metered-quota rejection (allocation not guarding this write)");
      throw exhausted(error, false);
    }
    lastQuotaError = error;
  }

  log.info("allocation: metered-quota rejection; re-checking headroom and retrying");
  let after: AfterQuotaRejection;
  try {
    after = await context.ensure();
  } catch (error) {
    deps.events.emit("allocation.quotaRetry", { callSite, outcome: "abandoned" });
    throw error;
  }
  if (after === "notGuarded") {
    log.info("allocation: metered-quota rejection; allocation does not apply to this org after all");
    throw exhausted(lastQuotaError, false);
  }

  for (let attempt = 1; attempt <= QUOTA_RETRY_ATTEMPTS; attempt++) {
    if (!context.budget.take(QUOTA_RETRY_INTERVAL_MS)) break;
    await deps.clock.sleep(QUOTA_RETRY_INTERVAL_MS);
    try {
      const result = await write();
      deps.events.emit("allocation.quotaRetry", { callSite, outcome: "recovered" });
      log.info({ attempt }, "allocation: metered write recovered after a quota rejection");
      return result;
    } catch (error) {
      if (!isQuota(error)) {
        deps.events.emit("allocation.quotaRetry", { callSite, outcome: "abandoned" });
        throw error;
      }
      lastQuotaError = error;
    }
  }
  log.warn({ budgetLeftMs: context.budget.remainingMs }, "allocation: quota retries exhausted");
  throw exhausted(lastQuotaError, true);
}
