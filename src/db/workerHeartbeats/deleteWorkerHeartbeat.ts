import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { workerHeartbeats } from "../schema.ts";

/** A worker that stops cleanly removes its heartbeat, so readiness gates fail closed at once. */
export async function deleteWorkerHeartbeat(db: DbExecutor, workerId: string): Promise<void> {
  await db.delete(workerHeartbeats).where(eq(workerHeartbeats.workerId, workerId));
}
