import type { NewBrandInput } from "../brands/brandService.ts";
import type { PromptGenerationHandle } from "../generation/generationJobType.ts";
import type { CreateMarketInput } from "../markets/market.ts";
import type { AcceptedProvisioning } from "../subWorkspaces/asyncProvisioning.ts";
import type { ActivationMarketResult } from "./activationMarkets.ts";

/** What the endpoints that provision take and answer (spec/api.md §3, spec/provisioning.md §6). */

export interface SemrushMarketInput {
  market: string;
  languageCode: string;
  generatePrompts?: boolean;
  modelIds?: string[];
}

export interface CreateBrandInput extends NewBrandInput {
  /** Provision the brand in sub-workspace mode with this initial market; absent = a flat brand. */
  semrushMarket?: SemrushMarketInput;
  /**
   * `async: true` provisions off the request path (spec/provisioning.md §6); while the master
   * switch `SERENITY_ASYNC_PROVISIONING` is off it silently runs the synchronous path.
   */
  async?: boolean;
}

export interface ActivateInput {
  markets?: { market: string; languageCode: string }[];
  generatePrompts?: boolean;
  async?: boolean;
}

export interface CreateMarketRequest extends CreateMarketInput {
  async?: boolean;
  /** Generate monitoring prompts for the market (spec/generation.md §2). */
  generatePrompts?: boolean;
}

export interface ActivationResult {
  brandId: string;
  status: "active";
  markets: ActivationMarketResult[];
}

/** What a create or activate request got: done now, or accepted as a provisioning job (202). */
export type Requested<T> =
  | {
      done: T;
      /** The generation handle when one was produced; absent whenever gate 1 is closed. */
      promptGeneration?: PromptGenerationHandle;
    }
  | { accepted: AcceptedProvisioning };
