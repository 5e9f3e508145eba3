import type { DbExecutor } from "../db/database.ts";
import { purgeExpiredPoolSamples } from "../db/poolSamples/purgeExpiredPoolSamples.ts";

export const EXPIRED_POOL_SAMPLES_STEP = "poolHistory.expiredSamples";

/**
 * The job reconciler's housekeeping of the pool history: samples past the retention
 * (`SERENITY_POOL_HISTORY_RETENTION_MS`, read per run) are deleted for every org, a bounded batch
 * per run, judged on the reconciler's database time: the one place the history is bounded, for the
 * orgs still sampled and those that stopped being sampled alike (ADR 0042).
 */
export function expiredPoolSamplesStep(retentionMs: () => number): {
  name: string;
  step: (context: { db: DbExecutor; now: Date }) => Promise<Record<string, number>>;
} {
  return {
    name: EXPIRED_POOL_SAMPLES_STEP,
    async step({ db, now }) {
      return {
        purged: await purgeExpiredPoolSamples(db, { before: new Date(now.getTime() - retentionMs()) }),
      };
    },
  };
}
