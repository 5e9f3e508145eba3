import type { DbExecutor } from "../database.ts";
import { workerHeartbeats } from "../schema.ts";

export async function upsertWorkerHeartbeat(
  db: DbExecutor,
  beat: { workerId: string; jobTypes: string[]; now: Date },
): Promise<void> {
  await db
    .insert(workerHeartbeats)
    .values({ workerId: beat.workerId, jobTypes: beat.jobTypes, seenAt: beat.now })
    .onConflictDoUpdate({
      target: workerHeartbeats.workerId,
      set: { jobTypes: beat.jobTypes, seenAt: beat.now },
    });
}
