import type { DbExecutor } from "../db/database.ts";
import { purgeExpiredIdempotencyKeys } from "../db/idempotencyKeys/purgeExpiredIdempotencyKeys.ts";

export const EXPIRED_KEYS_STEP = "idempotency.expiredKeys";

/**
 * The job reconciler's housekeeping of idempotency keys: keys past their 24 h are deleted (a
 * bounded batch per run). Database only; a key past its lifetime already counts for nothing, so
 * purging late is harmless.
 */
export function expiredKeysStep(): {
  name: string;
  step: (context: { db: DbExecutor }) => Promise<Record<string, number>>;
} {
  return {
    name: EXPIRED_KEYS_STEP,
    async step({ db }) {
      return { purged: await purgeExpiredIdempotencyKeys(db) };
    },
  };
}
