import { failStaleProvisioningAttempt } from "../db/brands/failStaleProvisioningAttempt.ts";
import { findStaleProvisioningAttempts } from "../db/brands/findStaleProvisioningAttempts.ts";
import type { ReconcileStep } from "../jobs/reconciler.ts";
import type { EventBus } from "../observability/events.ts";
import { provisioningStaleMs } from "./provisioningSettings.ts";

const BATCH = 500;
export const STALE_ATTEMPTS_STEP = "provisioning.staleAttempts";

/**
 * The reconciler's provisioning step (spec/provisioning.md §2, §4 T5): attempts stuck `pending`
 * past SERENITY_PROVISIONING_STALE_MS (read per run) are failed "went stale", each by a guarded
 * update on its attempt id, so the brand can be provisioned again and never stays pending forever
 * after its worker died. Database only, as reconcile steps must be: a stale attempt's candidate
 * holds no project (projects are only created after a promote), so nothing upstream needs undoing
 * — it stays adoptable by title.
 */
export function staleAttemptsStep(deps: { events: EventBus; env?: Record<string, string | undefined> }): {
  name: string;
  step: ReconcileStep;
} {
  return {
    name: STALE_ATTEMPTS_STEP,
    async step({ db, now, logger }) {
      const staleBefore = new Date(now.getTime() - provisioningStaleMs(deps.env));
      const stale = await findStaleProvisioningAttempts(db, { staleBefore, limit: BATCH });
      let failed = 0;
      for (const attempt of stale) {
        if (await failStaleProvisioningAttempt(db, { ...attempt, staleBefore, now })) {
          failed += 1;
          logger.warn(attempt, "failed a stale provisioning attempt");
          deps.events.emit("provisioning.attempt", { outcome: "stale" });
        }
      }
      return { found: stale.length, failed };
    },
  };
}
