import { randomUUID } from "node:crypto";

import type { CredentialStore } from "../credentials/credentialStore.ts";
import type { Db } from "../db/database.ts";
import { insertJob } from "../db/jobs/insertJob.ts";
import { isJobLeaseHeld } from "../db/jobs/isJobLeaseHeld.ts";
import type { JobRow } from "../db/jobs/jobRow.ts";
import { linkNextJob } from "../db/jobs/linkNextJob.ts";
import { saveJobCheckpoint } from "../db/jobs/saveJobCheckpoint.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";
import { currentTraceCarrier } from "../observability/tracing.ts";
import type { JobContext, JobMetadata } from "./handler.ts";
import { LeaseLostError, needsReauth } from "./jobError.ts";
import type { JobQueue } from "./queue.ts";
import type { JobRegistry } from "./registry.ts";

export interface ContextDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  queue: JobQueue;
  registry: JobRegistry;
  credentials: CredentialStore;
}

/** The context of one leased delivery: every write is fenced by `leaseToken`. */
export function createJobContext<M extends JobMetadata>(
  deps: ContextDeps,
  delivery: {
    record: JobRow;
    leaseToken: string;
    metadata: M;
    signal: AbortSignal;
    /** Receives every token this context hands out, so the runner can scrub them from logs. */
    exposedSecrets?: string[];
    /** Whether the lease still has time left on this process's monotonic clock (the runner's). */
    leaseHeld?: () => boolean;
  },
): JobContext<M> {
  const { record, leaseToken } = delivery;
  const { leaseToken: _hidden, ...snapshot } = record;
  let handedOff = false;
  const logger = deps.logger.child({
    jobId: record.id,
    jobType: record.type,
    orgId: record.orgId,
    brandId: record.brandId,
    attempt: record.attempts,
  });

  const handOff = async (type: string, metadata: JobMetadata, delayMs: number): Promise<string> => {
    if (handedOff) throw new Error("A job hands off to at most one successor (requeue or chain).");
    const nextJobId = randomUUID();
    await deps.db.transaction(async (tx) => {
      const now = deps.clock.databaseTime?.();
      await insertJob(tx, {
        id: nextJobId,
        type,
        orgId: record.orgId,
        brandId: record.brandId,
        metadata,
        credentialId: record.credentialId,
        createdBy: record.createdBy,
        rootJobId: record.rootJobId ?? record.id,
        // The successor's deliveries continue this delivery's span (the active one here).
        traceContext: currentTraceCarrier(),
        now,
      });
      if (!(await linkNextJob(tx, { jobId: record.id, leaseToken, nextJobId, now }))) {
        throw new LeaseLostError(record.id);
      }
      await deps.queue.enqueue(nextJobId, { delayMs, db: tx, continuation: true });
    });
    handedOff = true;
    return nextJobId;
  };

  const context: JobContext<M> = {
    job: snapshot,
    metadata: delivery.metadata,
    attempt: record.attempts,
    signal: delivery.signal,
    clock: deps.clock,
    logger,
    async credential() {
      if (!record.credentialId) throw needsReauth();
      const exchanged = await deps.credentials.exchange(record.credentialId);
      if (exchanged.status !== "ok") {
        logger.info({ reason: exchanged.reason }, "job credential unavailable");
        throw needsReauth();
      }
      delivery.exposedSecrets?.push(exchanged.token);
      return exchanged.token;
    },
    async assertLeaseHeld() {
      // Out of time on our own clock: lost, whatever the row says (another delivery may claim it
      // the moment it lapses). Else the row decides, on the database's clock.
      if (delivery.leaseHeld && !delivery.leaseHeld()) throw new LeaseLostError(record.id);
      const held = await isJobLeaseHeld(deps.db, {
        jobId: record.id,
        leaseToken,
        now: deps.clock.databaseTime?.(),
      });
      if (!held) throw new LeaseLostError(record.id);
    },
    async saveCheckpoint(patch) {
      const metadata = await saveJobCheckpoint(deps.db, {
        jobId: record.id,
        leaseToken,
        patch,
        now: deps.clock.databaseTime?.(),
      });
      if (!metadata) throw new LeaseLostError(record.id);
      context.metadata = metadata as M;
    },
    async requeue(options) {
      const requeuedJobId = await handOff(record.type, options.metadata ?? context.metadata, options.delayMs);
      return { requeuedJobId };
    },
    async chain(options) {
      if (!deps.registry.has(options.type))
        throw new Error(`Cannot chain to unregistered job type ${options.type}`);
      const chainedJobId = await handOff(options.type, options.metadata, options.delayMs ?? 0);
      return { chainedJobId };
    },
  };
  return context;
}
