import { z } from "zod";

import type { AiResources, Workspace, WorkspaceDetails } from "../types.ts";
import { normaliseStatus } from "../workspaceStatus.ts";
import { wireId, wireParentId } from "./common.ts";

/** User Manager response schemas (spec/gateway.md §2, §3), mapped to domain shapes. */

export const workspaceWire = z
  .looseObject({ id: wireId, title: z.string(), status: z.string(), parent_id: wireParentId })
  .transform((w): Workspace => ({
    id: w.id,
    title: w.title,
    status: normaliseStatus(w.status),
    parentId: w.parent_id,
  }));

/**
 * One entry of `product_tiers` (`…core_domain.ProductTier`): only its `product` (`…Product`: `id`,
 * `limits_enabled`) is used. Read leniently — an entry of another shape, or another product, is
 * skipped rather than failing the whole answer (live adds products without notice).
 */
const productTierWire = z.looseObject({
  product: z.looseObject({ id: z.unknown(), limits_enabled: z.unknown() }).nullish(),
});

/** `limits_enabled` of the `ai` product, `null` when no entry says it as a boolean. */
function aiLimitsEnabledOf(tiers: readonly z.output<typeof productTierWire>[] | null | undefined) {
  for (const tier of tiers ?? []) {
    const product = tier.product;
    if (product?.id === "ai" && typeof product.limits_enabled === "boolean") return product.limits_enabled;
  }
  return null;
}

export const workspaceDetailsWire = z
  .looseObject({
    id: wireId,
    title: z.string(),
    status: z.string(),
    parent_id: wireParentId,
    product_tiers: z.array(productTierWire).nullish(),
  })
  .transform((w): WorkspaceDetails => ({
    id: w.id,
    title: w.title,
    status: normaliseStatus(w.status),
    parentId: w.parent_id,
    aiLimitsEnabled: aiLimitsEnabledOf(w.product_tiers),
  }));

export const statusWire = z.looseObject({ status: z.string() }).transform((s) => normaliseStatus(s.status));

export const familyWire = z.array(workspaceWire);

const usageWire = z.looseObject({ used: z.number(), drafted: z.number(), total: z.number() });

export const resourcesWire = z
  .looseObject({
    product_resources: z.looseObject({
      ai: z.looseObject({
        resources: z.looseObject({ projects: usageWire, prompts: usageWire }),
      }),
    }),
  })
  .transform((doc): AiResources => {
    const { projects, prompts } = doc.product_resources.ai.resources;
    return {
      projects: { used: projects.used, drafted: projects.drafted, total: projects.total },
      prompts: { used: prompts.used, drafted: prompts.drafted, total: prompts.total },
    };
  });
