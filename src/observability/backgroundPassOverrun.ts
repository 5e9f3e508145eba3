import type { EventBus } from "./events.ts";
import type { Logger } from "./logger.ts";

/**
 * A pass that no longer fits its period: one warning line (what an operator searches for) and the
 * `background.passOverrun` event behind `serenity_background_pass_overruns_total`.
 */
export function reportOverrun(
  deps: { logger: Logger; events?: EventBus },
  pass: "poolSampler" | "upstreamReconciler",
  durationMs: number,
  periodMs: number,
): void {
  deps.logger.warn(
    { pass, durationMs, periodMs },
    "background pass took longer than its period; it runs late (lengthen its period or add workers)",
  );
  deps.events?.emit("background.passOverrun", {
    pass,
    durationSeconds: durationMs / 1000,
    budgetSeconds: periodMs / 1000,
  });
}
