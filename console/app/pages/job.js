// @ts-check
import { isNotFound } from "../api.js";
import { ErrorNote, Loading, NotFound, usePageTitle } from "../components/common.js";
import { JobState } from "../components/jobs.js";
import { getJobTimeline } from "../endpoints.js";
import { formatClock, formatDuration, formatTime, shortId } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { Link } from "../router.js";

/** @typedef {import("../types.js").JobHop} JobHop */

const VIA = { start: "started", requeue: "requeued", chain: "chained" };

/**
 * Each hop as a bar on one time axis (from the first hop's creation to the last update), one row per
 * hop: gaps between bars are the delivery delays of requeues, the bar is the hop's life.
 * @param {{ hops: JobHop[] }} props
 */
function Timeline({ hops }) {
  const start = Math.min(...hops.map((hop) => Date.parse(hop.createdAt)));
  const end = Math.max(...hops.map((hop) => Date.parse(hop.updatedAt)), start + 1);
  const span = end - start;
  const x = (/** @type {string} */ at) => ((Date.parse(at) - start) / span) * 1000;
  return html`<ol class="timeline">
    ${hops.map((hop, index) => {
      const from = x(hop.createdAt);
      const width = Math.max(4, x(hop.updatedAt) - from);
      const lived = Date.parse(hop.updatedAt) - Date.parse(hop.createdAt);
      return html`<li key=${hop.id} class=${`hop hop-${hop.via}${hop.stuck ? " row-stuck" : ""}`}>
        <div class="hop-label">
          <strong>${index + 1}. ${VIA[hop.via]}</strong> <span>${hop.type}</span> <code>${shortId(hop.id)}</code>
          <div><${JobState} job=${hop} /> ${hop.error ? html`<code>${hop.error.code}</code> ${hop.error.message}` : null}</div>
          <div class="small">${formatTime(hop.createdAt)} · lived ${formatDuration(lived)} · ${hop.attempts} ${hop.attempts === 1 ? "delivery" : "deliveries"}</div>
        </div>
        <svg class="hop-track" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true">
          <rect class="seg seg-track" x="0" y="0" width="1000" height="10" />
          <rect class=${`hop-bar status-${hop.status.toLowerCase()}`} x=${Math.min(from, 996)} y="0" width=${width} height="10" />
        </svg>
      </li>`;
    })}
  </ol>`;
}

/**
 * One job: what a poll reports, and its chain as a timeline (each hop: requeue or chain, when, outcome).
 * @param {{ orgId: string, jobId: string }} props
 */
export function JobPage({ orgId, jobId }) {
  usePageTitle(`Job ${shortId(jobId)}`);
  const live = useLive({ timeline: () => getJobTimeline(orgId, jobId) }, [orgId, jobId]);
  if (isNotFound(live.errors.timeline)) return html`<${NotFound} what="job" />`;
  const timeline = live.data.timeline;
  if (!timeline)
    return html`<${ErrorNote} error=${live.errors.timeline} what="load the job" />${live.loaded ? null : html`<${Loading} />`}`;
  const { job, hops } = timeline;
  const total = Date.parse(job.updatedAt) - Date.parse(job.createdAt);
  return html`<section aria-labelledby="page-title">
    <p class="crumbs"><${Link} href=${`/console/orgs/${orgId}`}>Organisation<//> / <${Link} href=${`/console/orgs/${orgId}/jobs`}>jobs<//></p>
    <h1 id="page-title">Job <code>${shortId(job.id)}</code></h1>
    <p class="muted">updated ${formatClock(live.updatedAt)}</p>
    <${ErrorNote} error=${live.errors.timeline} what="refresh the job" />
    <dl class="facts">
      <div><dt>Type</dt><dd>${job.type}</dd></div>
      <div><dt>Status</dt><dd data-field="job-status"><${JobState} job=${job} /></dd></div>
      <div><dt>Brand</dt><dd>${job.brandId ? html`<${Link} href=${`/console/orgs/${orgId}/brands/${job.brandId}`}>${shortId(job.brandId)}<//>` : "—"}</dd></div>
      <div><dt>Created</dt><dd>${formatTime(job.createdAt)}</dd></div>
      <div><dt>Took</dt><dd>${formatDuration(total)} over ${job.hops} ${job.hops === 1 ? "hop" : "hops"}</dd></div>
      ${job.error ? html`<div><dt>Error</dt><dd><code>${job.error.code}</code> ${job.error.message}</dd></div>` : null}
    </dl>
    <section aria-labelledby="timeline-title" class="block">
      <h2 id="timeline-title">Timeline</h2>
      ${timeline.truncated ? html`<p class="note">Only the first ${hops.length} hops are shown.</p>` : null}
      <${Timeline} hops=${hops} />
    </section>
  </section>`;
}
