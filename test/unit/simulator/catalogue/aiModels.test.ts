import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import {
  AI_MODELS,
  DEFAULT_PROJECT_MODEL_KEYS,
  modelByKey,
} from "../../../../src/simulator/catalogue/aiModels.ts";

const live = JSON.parse(
  readFileSync(new URL("../../../fixtures/semrush/live-catalogues.json", import.meta.url), "utf8"),
) as { aiModels: unknown[] };

describe("the simulator's AI model catalogue", () => {
  it("is the live catalogue: 11 models, UUID ids, the live keys, names and icons, in its order", () => {
    expect(AI_MODELS).toEqual(live.aiModels);
    expect(AI_MODELS).toHaveLength(11);
  });

  it("holds the default model of a new project", () => {
    for (const key of DEFAULT_PROJECT_MODEL_KEYS) expect(modelByKey(key)).toBeDefined();
  });
});
