// @ts-check
import { isNotFound } from "../api.js";
import { ErrorNote, Loading, NotFound, usePageTitle } from "../components/common.js";
import { JobRows } from "../components/jobs.js";
import { listBrands, listJobs } from "../endpoints.js";
import { formatClock } from "../format.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import { Link, navigate } from "../router.js";

const STATUSES = ["IN_PROGRESS", "COMPLETED", "FAILED"];

/**
 * An org's jobs, newest first, filtered by status and type (kept in the URL, so a filtered view can
 * be shared), paged with the API's cursor. Stuck jobs are highlighted. Two calls per refresh.
 * @param {{ orgId: string, search: string }} props
 */
export function JobsPage({ orgId, search }) {
  usePageTitle("Jobs");
  const params = new URLSearchParams(search);
  const status = params.get("status") ?? "";
  const type = params.get("type") ?? "";
  const cursor = params.get("cursor") ?? "";
  const live = useLive(
    {
      jobs: () =>
        listJobs(orgId, {
          status: status || undefined,
          type: type || undefined,
          cursor: cursor || undefined,
          limit: 50,
        }),
      brands: () => listBrands(orgId),
    },
    [orgId, status, type, cursor],
  );
  if (isNotFound(live.errors.jobs)) return html`<${NotFound} what="organisation" />`;
  const base = `/console/orgs/${orgId}/jobs`;
  /** @param {Record<string, string>} changes */
  const go = (changes) => {
    const next = new URLSearchParams({ status, type, ...changes });
    for (const [key, value] of [...next.entries()]) if (!value) next.delete(key);
    const query = next.toString();
    navigate(query ? `${base}?${query}` : base);
  };
  const brandNames = new Map((live.data.brands?.items ?? []).map((brand) => [brand.id, brand.name]));
  // The types on the page, and the one filtered on (a job's type is that of its first hop).
  const types = [
    ...new Set([...(live.data.jobs?.items ?? []).map((job) => job.type), ...(type ? [type] : [])]),
  ].sort();

  return html`<section aria-labelledby="page-title">
    <p class="crumbs"><${Link} href=${`/console/orgs/${orgId}`}>Organisation<//> / jobs</p>
    <h1 id="page-title">Jobs</h1>
    <p class="muted">Newest first; a stuck job is one nothing has touched for the stall grace. Updated ${formatClock(live.updatedAt)}.</p>
    <div class="filters">
      <div class="field">
        <label for="filter-status">Status</label>
        <select id="filter-status" value=${status} onChange=${(/** @type {Event} */ e) => go({ status: /** @type {HTMLSelectElement} */ (e.currentTarget).value, cursor: "" })}>
          <option value="">any</option>
          ${STATUSES.map((value) => html`<option value=${value}>${value}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="filter-type">Type</label>
        <select id="filter-type" value=${type} onChange=${(/** @type {Event} */ e) => go({ type: /** @type {HTMLSelectElement} */ (e.currentTarget).value, cursor: "" })}>
          <option value="">any</option>
          ${types.map((value) => html`<option value=${value}>${value}</option>`)}
        </select>
      </div>
    </div>
    <${ErrorNote} error=${live.errors.jobs} what="load the jobs" />
    ${
      live.data.jobs
        ? html`<${JobRows} orgId=${orgId} jobs=${live.data.jobs.items} caption="Jobs, newest first" brandNames=${brandNames} />
          <nav class="pager" aria-label="Job pages">
            ${cursor ? html`<${Link} href=${params.has("status") || params.has("type") ? `${base}?${new URLSearchParams({ status, type }).toString()}` : base}>Newest jobs<//>` : null}
            ${live.data.jobs.nextCursor ? html`<button type="button" onClick=${() => go({ cursor: live.data.jobs?.nextCursor ?? "" })}>Older jobs</button>` : null}
          </nav>`
        : live.loaded
          ? null
          : html`<${Loading} />`
    }
  </section>`;
}
