import type { Principal } from "../auth/principal.ts";
import type { JobService, JobState } from "../jobs/jobService.ts";
import { GENERATE_MARKET_PROMPTS_JOB } from "./generationJobType.ts";

/** The poll's view of a generation job (spec/generation.md §5): an explicit allowlist. */
export interface GenerationJobView extends Omit<JobState, "result"> {
  result: { promptCount: number; projectId: string; published: boolean; verdict: string } | null;
}

const ONLY_GENERATION = { types: [GENERATE_MARKET_PROMPTS_JOB] } as const;

/**
 * Poll and re-authentication of generation jobs (spec/generation.md §5), on the job system's
 * tenancy-checked poll and reauth restricted to `generate-market-prompts`: a job of another type
 * answers `notFound`, like a job of another brand. The result keeps four fields only, so a
 * checkpoint or anything else a handler returned never leaves the server.
 */
export class GenerationJobs {
  constructor(private readonly jobs: Pick<JobService, "getForBrand" | "reauth">) {}

  async get(principal: Principal, orgId: string, brandId: string, jobId: string): Promise<GenerationJobView> {
    const state = await this.jobs.getForBrand(principal, orgId, brandId, jobId, ONLY_GENERATION);
    return { ...state, result: state.result ? generationResultOf(state.result) : null };
  }

  reauth(principal: Principal, orgId: string, brandId: string, jobId: string) {
    return this.jobs.reauth(principal, orgId, brandId, jobId, ONLY_GENERATION);
  }
}

function generationResultOf(result: Record<string, unknown>): NonNullable<GenerationJobView["result"]> {
  return {
    promptCount: typeof result.promptCount === "number" ? result.promptCount : 0,
    projectId: typeof result.projectId === "string" ? result.projectId : "",
    published: result.published === true,
    verdict: typeof result.verdict === "string" ? result.verdict : "ship",
  };
}
