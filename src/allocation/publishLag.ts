import { durationMs, type FlagSource } from "../config/flags.ts";

/** How long after a publish upstream's `used` may still read low (SERENITY_PUBLISH_LAG_MS). */
export const DEFAULT_PUBLISH_LAG_MS = 30_000;

/** The publish lag window, read per use (releases defer inside it; the record keeps usage up). */
export function publishLagMs(env?: FlagSource): number {
  return durationMs("SERENITY_PUBLISH_LAG_MS", DEFAULT_PUBLISH_LAG_MS, env);
}
