import { describe, expect, it } from "vitest";

import {
  generationJobsByMarket,
  generationStateOf,
  marketKey,
  summarySentence,
} from "../../../../console/app/generation.js";
import type { JobSummary } from "../../../../console/app/types.js";

/** The console's reading of generation (spec/generation.md §5, §7): pure, so tested here. */

const error = (code: string, needsReauth = false) => ({
  code,
  message: "sentence",
  retryable: false,
  needsReauth,
});

function job(overrides: Partial<JobSummary>): JobSummary {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    type: "generateSemrushMarket",
    jobId: "00000000-0000-4000-8000-000000000001",
    jobType: "generateSemrushMarket",
    brandId: "00000000-0000-4000-8000-000000000002",
    status: "IN_PROGRESS",
    error: null,
    stuck: false,
    hops: 1,
    market: { geoTargetId: 2250, languageCode: "fr" },
    createdAt: "2026-12-01T10:00:00.000Z",
    updatedAt: "2026-12-01T10:00:00.000Z",
    ...overrides,
  };
}

describe("generationStateOf (the §5 mapping)", () => {
  it("maps every status and terminal code to the word the page shows", () => {
    expect(generationStateOf(job({ status: "IN_PROGRESS" }))).toBe("generating");
    expect(generationStateOf(job({ status: "COMPLETED" }))).toBe("live");
    expect(generationStateOf(job({ status: "FAILED", error: error("PROMPT_GENERATION_HELD") }))).toBe("held");
    expect(generationStateOf(job({ status: "FAILED", error: error("NEEDS_REAUTH", true) }))).toBe(
      "needs-sign-in",
    );
    for (const code of [
      "PROMPT_GENERATION_GATE_ERROR",
      "PROMPT_GENERATION_EMPTY",
      "GENERATION_TERMINAL",
      "JOB_FAILED",
    ]) {
      expect(generationStateOf(job({ status: "FAILED", error: error(code) })), code).toBe("failed");
    }
    expect(generationStateOf(job({ status: "FAILED", error: null }))).toBe("failed");
  });
});

describe("generationJobsByMarket", () => {
  it("keeps the newest generation job per market and ignores other types and jobs without a market", () => {
    const newest = job({ jobId: "00000000-0000-4000-8000-00000000000a", status: "COMPLETED" });
    const older = job({ jobId: "00000000-0000-4000-8000-00000000000b", status: "FAILED" });
    const german = job({
      jobId: "00000000-0000-4000-8000-00000000000c",
      market: { geoTargetId: 2276, languageCode: "DE" },
    });
    const other = job({ jobId: "00000000-0000-4000-8000-00000000000d", jobType: "createMarket" });
    const noMarket = job({ jobId: "00000000-0000-4000-8000-00000000000e", market: null });
    const byMarket = generationJobsByMarket([newest, other, older, german, noMarket]);
    expect([...byMarket.keys()].sort()).toEqual(["2250-fr", "2276-de"]);
    expect(byMarket.get(marketKey({ geoTargetId: 2250, languageCode: "FR" }))).toBe(newest);
    expect(byMarket.get("2276-de")).toBe(german);
  });
});

describe("summarySentence", () => {
  const summary = {
    generated: 120,
    hard_validated: 110,
    guardrail_dropped: 4,
    language_rejected: 2,
    quality_downranked: 84,
    final_count: 20,
    verdict: "ship" as const,
    error_category: null,
    reason: "",
  };

  it("says what was kept and why the rest was not", () => {
    expect(summarySentence(summary)).toBe(
      "20 kept of 120 generated: 10 failed the checks, 4 duplicates, 2 in the wrong language, 84 ranked lower.",
    );
  });

  it("leaves out the stages that dropped nothing", () => {
    expect(
      summarySentence({
        ...summary,
        generated: 20,
        hard_validated: 20,
        guardrail_dropped: 0,
        language_rejected: 0,
        quality_downranked: 0,
      }),
    ).toBe("20 kept of 20 generated.");
  });
});
