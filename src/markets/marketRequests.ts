import type { AcceptedProvisioning } from "../subWorkspaces/asyncProvisioning.ts";
import type { CreateMarketInput } from "./market.ts";
import type { PromptGenerationHandle } from "./marketGeneration.ts";

/** What `POST …/serenity/markets` takes (spec/api.md §3, spec/provisioning.md §6). */
export interface CreateMarketRequest extends CreateMarketInput {
  async?: boolean;
  /** Generate monitoring prompts for the market (spec/generation.md §2). */
  generatePrompts?: boolean;
}

/** What a create or activate request got: done now, or accepted as a provisioning job (202). */
export type Requested<T> =
  | {
      done: T;
      /** The generation handle when one was produced; absent whenever gate 1 is closed. */
      promptGeneration?: PromptGenerationHandle;
    }
  | { accepted: AcceptedProvisioning };
