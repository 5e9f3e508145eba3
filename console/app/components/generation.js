// @ts-check
// A market's prompt generation as a person reads it (spec/generation.md §5, spec/console.md §3):
// generating, live, held with its reason, failed, or waiting for a sign-in — with the button that
// resumes it using this session's token.
import { html } from "../html.js";
import { Badge } from "./common.js";

/** @typedef {import("../types.js").JobSummary} JobSummary */
/** @typedef {"generating" | "live" | "held" | "needs-sign-in" | "failed"} GenerationState */

/** The public type of the generation job in the org job list. */
export const GENERATION_JOB_TYPE = "generateSemrushMarket";
/** The terminal code of a soft quality hold (spec/generation.md §3). */
const HELD = "PROMPT_GENERATION_HELD";

/** @type {Record<GenerationState, string>} */
const LABELS = {
  generating: "generating",
  live: "live",
  held: "held",
  "needs-sign-in": "needs sign-in",
  failed: "failed",
};

/**
 * The §5 mapping: IN_PROGRESS → generating; COMPLETED → live; FAILED with the held code → held;
 * FAILED needing re-authentication → needs sign-in; any other FAILED → failed.
 * @param {Pick<JobSummary, "status" | "error">} job
 * @returns {GenerationState}
 */
export function generationStateOf(job) {
  if (job.status === "IN_PROGRESS") return "generating";
  if (job.status === "COMPLETED") return "live";
  if (job.error?.needsReauth) return "needs-sign-in";
  if (job.error?.code === HELD) return "held";
  return "failed";
}

/** @param {{ geoTargetId: number, languageCode: string }} market */
export const marketKey = (market) => `${market.geoTargetId}-${market.languageCode.toLowerCase()}`;

/**
 * Each market's generation job, from one page of the org job list filtered by brand and type.
 * The list is newest first, so the first job seen for a market is its current one.
 * @param {JobSummary[]} jobs
 * @returns {Map<string, JobSummary>}
 */
export function generationJobsByMarket(jobs) {
  /** @type {Map<string, JobSummary>} */
  const byMarket = new Map();
  for (const job of jobs) {
    if (job.jobType !== GENERATION_JOB_TYPE || !job.market) continue;
    const key = marketKey(job.market);
    if (!byMarket.has(key)) byMarket.set(key, job);
  }
  return byMarket;
}

/**
 * The cell of a market's generation: its state in words, the reason when held or failed, and the
 * Re-authenticate button when the job waits for a sign-in.
 * @param {{ job: JobSummary | undefined, onReauth: (job: JobSummary) => Promise<void> }} props
 */
export function GenerationCell({ job, onReauth }) {
  if (!job) return html`<span class="muted">none</span>`;
  const state = generationStateOf(job);
  const reason =
    (state === "held" || state === "failed" || state === "needs-sign-in") && job.error
      ? html`<div class="small" data-field="generation-reason">${job.error.message}</div>`
      : null;
  return html`<div data-field="generation" data-state=${state}>
    <${Badge} value=${state} label=${LABELS[state]} />
    ${reason}
    ${
      state === "needs-sign-in"
        ? html`<button type="button" class="button-small" onClick=${() => onReauth(job)}>Re-authenticate</button>`
        : null
    }
  </div>`;
}
