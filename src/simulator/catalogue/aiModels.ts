/**
 * The global AI model catalogue (`GET /v1/ai_models`): the live catalogue as captured from the
 * Project Engine on 2026-06-25 (11 models; UUID string ids, the live keys, names and icon names).
 * test/unit/simulator/catalogue/aiModels.test.ts holds it equal to the specification's fixture.
 */
export interface CatalogueModel {
  id: string;
  key: string;
  name: string;
  icon: string;
}

// [id, key, name, icon], in the live answer's order.
const ENTRIES: [string, string, string, string][] = [
  ["ee6a9130-3d57-4196-b1a2-43a6edd2d0d6", "open-evidence", "OpenEvidence", "openEvidence"],
  ["eab23d14-df70-463f-8779-3f6a4ba770bc", "search-gpt", "ChatGPT", "openai"],
  ["7e372c8f-d9a8-4255-a049-d4cd60772f20", "gpt-5", "ChatGPT (No Search)", "openai"],
  ["a041f7d9-abb7-4b02-9967-b37459ef0d80", "google-ai-overview", "Google AI Overview", "google"],
  ["a31bd3b2-deb2-4e22-8191-9c255671835d", "google-ai-mode", "Google AI Mode", "google"],
  ["4e0afe27-c9cc-4730-9dd1-f307309bafe3", "perplexity", "Perplexity", "perplexity"],
  ["56423570-b83d-4dc9-a743-52f8521c986c", "microsoft-copilot", "MS Copilot", "microsoftCopilot"],
  ["b549432a-bb68-40d0-9901-6aeab4e975a2", "grok-3", "Grok", "grok"],
  ["58c396de-85a4-4f7f-adfb-240019c6375f", "gemini-2.5-flash", "Gemini", "gemini"],
  ["8663d87f-f2cc-43e6-851e-c5fc38527c9c", "claude-sonnet-4", "Claude", "claude"],
  ["452163e0-dcd6-4f48-9610-192848e52694", "deepseek", "Deepseek", "deepseek"],
];

export const AI_MODELS: readonly CatalogueModel[] = ENTRIES.map(([id, key, name, icon]) => ({
  id,
  key,
  name,
  icon,
}));

/**
 * The models a new project starts with. One default model keeps prompt metering meaningful from the
 * first prompt write (k texts × 1 model) without any model edit.
 */
export const DEFAULT_PROJECT_MODEL_KEYS: readonly string[] = ["search-gpt"];

const BY_ID = new Map(AI_MODELS.map((model) => [model.id, model]));
const BY_KEY = new Map(AI_MODELS.map((model) => [model.key, model]));

export function modelById(id: string): CatalogueModel | undefined {
  return BY_ID.get(id);
}

export function modelByKey(key: string): CatalogueModel | undefined {
  return BY_KEY.get(key);
}
