import type { JobState } from "../../jobs/jobService.ts";

/** The `Job` shape of spec/api.md §3: an explicit allowlist (no metadata, checkpoints or credentials). */
export function jobView(job: JobState) {
  return {
    id: job.jobId,
    type: job.jobType,
    jobId: job.jobId,
    jobType: job.jobType,
    status: job.status,
    result: job.result,
    error: job.error
      ? {
          code: job.error.code,
          message: job.error.message,
          retryable: job.error.retryable,
          needsReauth: job.error.needsReauth,
        }
      : null,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}
