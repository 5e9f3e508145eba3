/**
 * The models a new market tracks when the request names none and the brand has no other market
 * to copy from (docs/decisions/0005-default-models.md): one conversational search assistant,
 * Google's answer box and an answer engine, the three surfaces most brands ask about first.
 */
export const DEFAULT_MODEL_KEYS: readonly string[] = ["search-gpt", "google-ai-overview", "perplexity"];
