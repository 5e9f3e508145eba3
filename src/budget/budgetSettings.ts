import type { UpstreamBudgetSettings } from "../config/env.ts";
import { type BudgetLimits, slotCountOf } from "../domain/upstreamBudget.ts";

/** The limits of one (account, group) budget, or undefined when unlimited (no budget at all). */
export function budgetLimitsOf(settings: UpstreamBudgetSettings): BudgetLimits | undefined {
  const slots = slotCountOf(settings.perSecond, settings.concurrent);
  if (slots === 0) return undefined;
  return {
    slots,
    windowMs: 1_000 + settings.windowMarginMs,
    backgroundShare: Math.max(1, Math.min(slots, settings.backgroundShare)),
  };
}
