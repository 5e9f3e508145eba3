import { brandView } from "../brands/brandView.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import type { Market } from "./market.ts";
import type { PromptGenerationHandle } from "./marketGeneration.ts";
import { marketView } from "./marketView.ts";

/**
 * What a provisioning-family job stores as its `result` (spec/provisioning.md §6): the
 * `{status, body}` the synchronous endpoint would have answered, through the same views as the
 * routes. This is the job records' edge, as the routes are the HTTP one: statuses are named only here.
 */

/** `create-market` for create brand: the Brand, as its 201. */
export function brandCreatedResult(brand: BrandRow, promptGeneration?: PromptGenerationHandle) {
  return { status: 201, body: { ...brandView(brand), ...(promptGeneration ? { promptGeneration } : {}) } };
}

/** `create-market` for create market: `{market}`, as its 201. */
export function marketCreatedResult(market: Market, promptGeneration?: PromptGenerationHandle) {
  return {
    status: 201,
    body: { market: marketView(market), ...(promptGeneration ? { promptGeneration } : {}) },
  };
}
