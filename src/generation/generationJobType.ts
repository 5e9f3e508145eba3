/** The generation job's names (spec/generation.md §3): stored type and the type clients see. */
export const GENERATE_MARKET_PROMPTS_JOB = "generate-market-prompts";
export const GENERATE_MARKET_PROMPTS_PUBLIC_TYPE = "generateSemrushMarket";

/** A producer's answer to a request that started (or found) a generation: spec/generation.md §2 step 5. */
export interface PromptGenerationHandle {
  jobId: string;
  status: "provisioning";
  /** True when an existing job was handed back (running, or waiting for re-authentication). */
  reused: boolean;
}
