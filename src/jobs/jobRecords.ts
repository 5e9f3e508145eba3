import type { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db, DbExecutor } from "../db/database.ts";
import { type DatabaseTime, readDatabaseNow } from "../db/databaseTime.ts";
import { findJob } from "../db/jobs/findJob.ts";
import { insertJob } from "../db/jobs/insertJob.ts";
import type { JobRow } from "../db/jobs/jobRow.ts";
import { lockJobKey } from "../db/jobs/lockJobKey.ts";
import { rearmJob } from "../db/jobs/rearmJob.ts";
import type { Clock } from "../domain/clock.ts";
import { currentTraceCarrier } from "../observability/tracing.ts";
import type { JobQueue } from "./queue.ts";

/**
 * The one way a job record comes to exist: its owner's credential sealed (when one is carried),
 * the IN_PROGRESS row inserted and the job enqueued, all in the caller's transaction. Features
 * create jobs through `JobService.submit` or `submitKeyedJob` below, never by their own SQL (the
 * lint forbids imports of src/db/jobs/ outside src/jobs/).
 */

export interface JobRecordDeps {
  credentials: Pick<CredentialStore, "seal">;
  queue: Pick<JobQueue, "enqueue">;
}

export interface NewJobRecord {
  id: string;
  type: string;
  orgId: string;
  brandId: string | null;
  metadata: Record<string, unknown>;
  createdBy: string | null;
  /** Sealed for the worker under `createdBy`, who must then be set. */
  credentialToken?: string;
  delayMs?: number;
  /** Only a test's hand-driven time; production passes undefined: the database's clock. */
  now: DatabaseTime;
}

/** `false` when the id already exists: nothing was enqueued, and the caller rolls the seal back. */
export async function createJobRecord(
  tx: DbExecutor,
  deps: JobRecordDeps,
  input: NewJobRecord,
): Promise<boolean> {
  const credentialId =
    input.credentialToken !== undefined
      ? await deps.credentials.seal(input.createdBy!, input.credentialToken, { db: tx })
      : null;
  const row = await insertJob(tx, {
    id: input.id,
    type: input.type,
    orgId: input.orgId,
    brandId: input.brandId,
    metadata: input.metadata,
    credentialId,
    createdBy: input.createdBy,
    traceContext: currentTraceCarrier(),
    now: input.now,
  });
  if (!row) return false;
  await deps.queue.enqueue(input.id, { delayMs: input.delayMs, db: tx });
  return true;
}

/** A job record as stored, for a feature that follows one (a hop's hand-off, a chain). */
export function findJobRecord(db: DbExecutor, jobId: string): Promise<JobRow | undefined> {
  return findJob(db, jobId);
}

/** What `submitKeyedJob` does with a record that already holds the id. */
export type KeyedJobVerdict = "skip" | "reuse" | "rearm";

export type KeyedJobOutcome = "created" | "recycled" | "replaced" | "reused" | "skipped";

/**
 * A job whose id is derived from what it works on (one per key): under a transaction-scoped lock
 * on the id, `decide` judges the record already there — skip it, reuse it, or re-arm it in place
 * with a fresh credential (the old one invalidated) — else the record is created. Two racing
 * submitters create exactly one job. A record a runner moved meanwhile is reused.
 */
export async function submitKeyedJob(
  deps: {
    db: Db;
    clock: Clock;
    credentials: Pick<CredentialStore, "seal" | "invalidate">;
    queue: Pick<JobQueue, "enqueue">;
  },
  input: Omit<NewJobRecord, "createdBy" | "credentialToken" | "now" | "delayMs"> & {
    owner: { sub: string; bearer: string };
  },
  decide: (existing: JobRow, now: Date) => KeyedJobVerdict,
): Promise<KeyedJobOutcome> {
  const { db, clock, credentials, queue } = deps;
  const { owner } = input;
  const moved = Symbol("moved");
  try {
    return await db.transaction(async (tx): Promise<KeyedJobOutcome> => {
      await lockJobKey(tx, input.id);
      const existing = await findJob(tx, input.id);
      const now = clock.databaseTime?.();
      if (existing) {
        // Judged on the database's clock, which stamped the record's updated_at (ADR 0023).
        const verdict = decide(existing, await readDatabaseNow(tx, now));
        if (verdict === "skip") return "skipped";
        if (verdict === "reuse") return "reused";
        const credentialId = await credentials.seal(owner.sub, owner.bearer, { db: tx });
        const rearmed = await rearmJob(tx, {
          jobId: input.id,
          expected: { status: existing.status, updatedAt: existing.updatedAt },
          metadata: input.metadata,
          credentialId,
          createdBy: owner.sub,
          traceContext: currentTraceCarrier(),
          now,
        });
        // Only a runner can have moved it (it does not take the lock): roll the seal back.
        if (!rearmed) throw moved;
        if (existing.credentialId) await credentials.invalidate(existing.credentialId, { db: tx });
        await queue.enqueue(input.id, { db: tx });
        return existing.status === "IN_PROGRESS" ? "recycled" : "replaced";
      }
      const { owner: _owner, ...record } = input;
      const created = await createJobRecord(tx, deps, {
        ...record,
        createdBy: owner.sub,
        credentialToken: owner.bearer,
        now,
      });
      return created ? "created" : "reused";
    });
  } catch (error) {
    if (error === moved) return "reused";
    throw error;
  }
}
