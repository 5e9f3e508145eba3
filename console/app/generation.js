// @ts-check
// Prompt generation as a person reads it, without any rendering (so it is unit-tested): a market's
// state from its generation job (spec/generation.md §5), which job is a market's, and a preview's
// validation counts as one sentence (§7, §8).
import { formatNumber } from "./format.js";

/** @typedef {import("./types.js").JobSummary} JobSummary */
/** @typedef {import("./types.js").PromptPreview} PromptPreview */
/** @typedef {"generating" | "live" | "held" | "needs-sign-in" | "failed"} GenerationState */

/** The public type of the generation job in the org job list. */
export const GENERATION_JOB_TYPE = "generateSemrushMarket";
/** The terminal code of a soft quality hold (spec/generation.md §3). */
const HELD = "PROMPT_GENERATION_HELD";

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
    if (job.type !== GENERATION_JOB_TYPE || !job.market) continue;
    const key = marketKey(job.market);
    if (!byMarket.has(key)) byMarket.set(key, job);
  }
  return byMarket;
}

/**
 * The pipeline's counts as one sentence: what was kept, and why the rest was not.
 * @param {PromptPreview["summary"]} summary
 */
export function summarySentence(summary) {
  const dropped = [
    summary.generated - summary.hard_validated > 0
      ? `${formatNumber(summary.generated - summary.hard_validated)} failed the checks`
      : null,
    summary.guardrail_dropped > 0 ? `${formatNumber(summary.guardrail_dropped)} duplicates` : null,
    summary.language_rejected > 0 ? `${formatNumber(summary.language_rejected)} in the wrong language` : null,
    summary.quality_downranked > 0 ? `${formatNumber(summary.quality_downranked)} ranked lower` : null,
  ].filter(Boolean);
  const kept = `${formatNumber(summary.final_count)} kept of ${formatNumber(summary.generated)} generated`;
  return dropped.length > 0 ? `${kept}: ${dropped.join(", ")}.` : `${kept}.`;
}
