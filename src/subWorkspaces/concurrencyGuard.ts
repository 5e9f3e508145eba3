import type { BrandRow } from "../db/brands/brandRow.ts";
import { failProvisioningAttempt } from "../db/brands/failProvisioningAttempt.ts";
import type { DbExecutor } from "../db/database.ts";
import { readDatabaseNow } from "../db/databaseTime.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { concurrencyVerdict } from "../domain/provisioningAttempt.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * The concurrency guard of spec/provisioning.md §4, applied: run before T1 by every producer and
 * before every synchronous path that could create a workspace. A live attempt → 409
 * `semrushProvisioningInProgress`; a stale one is failed (T5 "went stale", guarded by its attempt
 * id) and the caller proceeds. If that T5 loses, the attempt moved meanwhile (a hop refreshed
 * it, or promoted it): the caller is told to retry rather than racing a live attempt.
 */
export async function applyConcurrencyGuard(
  deps: { db: DbExecutor; clock: Clock; logger: Logger; events?: EventBus },
  brand: BrandRow,
  staleMs: number,
): Promise<void> {
  // The attempt's age on the database's clock, which stamped it (docs/decisions/0023).
  const now = await readDatabaseNow(deps.db, deps.clock.databaseTime?.());
  const verdict = concurrencyVerdict(brand, now, staleMs);
  if (verdict === "proceed") return;
  if (verdict === "inProgress" || !brand.provisioningAttemptId) {
    throw new ServiceError("semrushProvisioningInProgress");
  }
  const failed = await failProvisioningAttempt(deps.db, {
    brandId: brand.id,
    attemptId: brand.provisioningAttemptId,
    reason: "stale",
    now: deps.clock.databaseTime?.(),
  });
  deps.logger.warn(
    { brandId: brand.id, attemptId: brand.provisioningAttemptId, failed: Boolean(failed) },
    "failing a stale provisioning attempt before proceeding",
  );
  if (!failed) throw new ServiceError("semrushProvisioningInProgress");
  deps.events?.emit("provisioning.attempt", { outcome: "stale" });
}
