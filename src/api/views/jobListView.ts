import type { JobHop, JobListPage, JobSummary, JobTimeline } from "../../jobs/jobListing.ts";

/** Explicit allowlists, as for the poll (jobView.ts): nothing else of a record leaves the server. */
function errorOf(error: JobSummary["error"]) {
  return error
    ? { code: error.code, message: error.message, retryable: error.retryable, needsReauth: error.needsReauth }
    : null;
}

export function jobSummaryView(job: JobSummary) {
  return {
    id: job.jobId,
    type: job.jobType,
    jobId: job.jobId,
    jobType: job.jobType,
    brandId: job.brandId,
    status: job.status,
    error: errorOf(job.error),
    stuck: job.stuck,
    hops: job.hops,
    market: job.market
      ? { geoTargetId: job.market.geoTargetId, languageCode: job.market.languageCode }
      : null,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}

export function jobListPageView(page: JobListPage) {
  return { items: page.items.map(jobSummaryView), nextCursor: page.nextCursor };
}

function hopView(hop: JobHop) {
  return {
    id: hop.jobId,
    type: hop.jobType,
    jobId: hop.jobId,
    jobType: hop.jobType,
    via: hop.via,
    status: hop.status,
    error: errorOf(hop.error),
    attempts: hop.attempts,
    stuck: hop.stuck,
    createdAt: hop.createdAt.toISOString(),
    updatedAt: hop.updatedAt.toISOString(),
  };
}

export function jobTimelineView(timeline: JobTimeline) {
  return {
    job: jobSummaryView(timeline.job),
    hops: timeline.hops.map(hopView),
    truncated: timeline.truncated,
  };
}
