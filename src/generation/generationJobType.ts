/** The generation job's names (spec/generation.md §3): stored type and the type clients see. */
export const GENERATE_MARKET_PROMPTS_JOB = "generate-market-prompts";
export const GENERATE_MARKET_PROMPTS_PUBLIC_TYPE = "generateSemrushMarket";
