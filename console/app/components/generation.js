// @ts-check
// A market's prompt generation as a person reads it (spec/generation.md §5, spec/console.md §3):
// generating, live, held with its reason, failed, or waiting for a sign-in — with the button that
// resumes it using this session's token.
import { generationStateOf } from "../generation.js";
import { html } from "../html.js";
import { Badge } from "./common.js";

/** @typedef {import("../types.js").JobSummary} JobSummary */
/** @typedef {import("../generation.js").GenerationState} GenerationState */

/** @type {Record<GenerationState, string>} */
const LABELS = {
  generating: "generating",
  live: "live",
  held: "held",
  "needs-sign-in": "needs sign-in",
  failed: "failed",
};

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
