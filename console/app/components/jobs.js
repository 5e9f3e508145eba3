// @ts-check
import { formatTime, shortId } from "../format.js";
import { html } from "../html.js";
import { Link } from "../router.js";
import { Badge, DataTable } from "./common.js";

/** @typedef {import("../types.js").JobSummary} JobSummary */

/**
 * A job's state in words: its status, and "stuck" or "needs sign-in" when that is the story.
 * @param {{ job: Pick<JobSummary, "status" | "stuck" | "error"> }} props
 */
export function JobState({ job }) {
  return html`<${Badge} value=${job.status} />
    ${job.stuck ? html` <${Badge} value="stuck" />` : null}
    ${job.error?.needsReauth ? html` <${Badge} value="needs-sign-in" label="needs sign-in" />` : null}`;
}

/**
 * @param {{ orgId: string, jobs: JobSummary[], caption: string, brandNames?: Map<string, string> }} props
 */
export function JobRows({ orgId, jobs, caption, brandNames }) {
  /** @type {import("./common.js").Column<JobSummary>[]} */
  const columns = [
    {
      key: "job",
      header: "Job",
      cell: (job) =>
        html`<${Link} href=${`/console/orgs/${orgId}/jobs/${job.id}`}><code>${shortId(job.id)}</code><//>`,
    },
    { key: "type", header: "Type", cell: (job) => job.type },
    ...(brandNames
      ? [
          {
            key: "brand",
            header: "Brand",
            cell: (/** @type {JobSummary} */ job) =>
              job.brandId ? (brandNames.get(job.brandId) ?? shortId(job.brandId)) : "—",
          },
        ]
      : []),
    { key: "status", header: "Status", cell: (job) => html`<${JobState} job=${job} />` },
    {
      key: "error",
      header: "Error",
      cell: (job) => (job.error ? html`<code>${job.error.code}</code>` : "—"),
    },
    { key: "hops", header: "Hops", cell: (job) => String(job.hops) },
    { key: "created", header: "Created", cell: (job) => formatTime(job.createdAt) },
    { key: "updated", header: "Updated", cell: (job) => formatTime(job.updatedAt) },
  ];
  return html`<${DataTable} caption=${caption} columns=${columns} rows=${jobs} rowKey=${(/** @type {JobSummary} */ job) => job.id}
    rowClass=${(/** @type {JobSummary} */ job) => (job.stuck ? "row-stuck" : job.status === "FAILED" ? "row-failed" : "")}
    empty="No jobs." />`;
}
