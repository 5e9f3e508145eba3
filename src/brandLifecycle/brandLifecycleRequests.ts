import type { NewBrandInput } from "../brands/brandService.ts";
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

export interface ActivationResult {
  brandId: string;
  status: "active";
  markets: ActivationMarketResult[];
}
