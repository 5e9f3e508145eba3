/**
 * When a job looks stuck to a person watching it (the console highlights it): it is still
 * IN_PROGRESS and nothing has touched it for the stall grace — its lease expired that long ago, or
 * it has no lease and has not moved since. This is the reconciler's stall rule without the queue
 * check (a message may still be waiting): a hint for people, not a decision.
 */
export interface JobActivity {
  status: "IN_PROGRESS" | "COMPLETED" | "FAILED";
  leaseExpiresAt: Date | null;
  leased: boolean;
  updatedAt: Date;
}

export function isJobStuck(job: JobActivity, now: Date, stallGraceMs: number): boolean {
  if (job.status !== "IN_PROGRESS") return false;
  const stalledBefore = now.getTime() - stallGraceMs;
  const leaseLapsed = job.leaseExpiresAt !== null && job.leaseExpiresAt.getTime() < stalledBefore;
  const untouched = !job.leased && job.updatedAt.getTime() < stalledBefore;
  return leaseLapsed || untouched;
}
