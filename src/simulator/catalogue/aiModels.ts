/** The global AI model catalogue (`GET /v1/ai_models`), keys as listed in spec/gateway.md §4. */
export interface CatalogueModel {
  id: number;
  key: string;
  name: string;
  icon: string;
}

const ENTRIES: [string, string][] = [
  ["search-gpt", "ChatGPT Search"],
  ["gpt-5", "GPT-5"],
  ["google-ai-overview", "Google AI Overview"],
  ["google-ai-mode", "Google AI Mode"],
  ["gemini-2.5-flash", "Gemini 2.5 Flash"],
  ["claude-sonnet-4", "Claude Sonnet 4"],
  ["perplexity", "Perplexity"],
  ["grok-3", "Grok 3"],
  ["deepseek", "DeepSeek"],
  ["microsoft-copilot", "Microsoft Copilot"],
];

// `.invalid` is a reserved TLD: the icons are placeholders, never fetched.
export const AI_MODELS: readonly CatalogueModel[] = ENTRIES.map(([key, name], index) => ({
  id: index + 1,
  key,
  name,
  icon: `https://icons.simulator.invalid/ai-models/${key}.svg`,
}));

/**
 * The models a new project starts with. One default model keeps prompt metering meaningful from the
 * first prompt write (k texts × 1 model) without any model edit.
 */
export const DEFAULT_PROJECT_MODEL_KEYS: readonly string[] = ["search-gpt"];

const BY_ID = new Map(AI_MODELS.map((model) => [model.id, model]));
const BY_KEY = new Map(AI_MODELS.map((model) => [model.key, model]));

export function modelById(id: number): CatalogueModel | undefined {
  return BY_ID.get(id);
}

export function modelByKey(key: string): CatalogueModel | undefined {
  return BY_KEY.get(key);
}
