import { z } from "zod";

import { INDUSTRIES, type IndustryMap } from "./catalogue/industries/industries.ts";
import type { RateLimit } from "./http/requestLimiter.ts";

/**
 * How the simulator's eventual consistency behaves. Read budgets (`…Reads`) make every lag
 * deterministic for tests; `settleMode: "time"` and the `…Ms` knobs model wall-clock lags for
 * benchmarks. The first six are the names of spec/gateway.md §6; the rest are extra knobs whose
 * defaults (0) turn the corresponding quirk off.
 */
export interface SimulatorSettings {
  /** `reads`: a new sub-workspace answers `not ready` to its first `settleReads` status observations; `time`: for `settleMs`. */
  settleMode: "reads" | "time";
  settleReads: number;
  settleMs: number;
  /** Resource reads after a publish that still show `used` without the published units. */
  usedLagReads: number;
  /** After a top-up, metered writes keep being judged against the old total for this long. */
  enforcementLagMs: number;
  /** Added before every non-control request. */
  latencyMs: number;
  /** Like `usedLagReads`, in milliseconds (both may apply; the lag ends when both are spent). */
  usedLagMs: number;
  /**
   * The longest a publish's lag lasts, whatever reads are left (0: unbounded). Live lag is bounded
   * in time, and Serenity is configured with that bound (SERENITY_PUBLISH_LAG_MS); a read budget
   * alone can outlast any window once enough time passes between reads.
   */
  usedLagMaxMs: number;
  /** Transfers on a freshly settled sub-workspace that still answer 422 `workspace not ready`. */
  notReadyTransfers: number;
  /** Project list reads of a workspace that do not show a project created just before. */
  listLagReads: number;
  /** Project reads that show `publishing` after a publish before it reads `live`. */
  publishReads: number;
  /** Status reads of a deleted workspace that answer `deleting` before it is gone (403). */
  deletingReads: number;
  /**
   * Semrush's request limits per (bearer, endpoint group), spec/gateway.md §7: admitted requests
   * started in any 1 s window ≤ `perSecond`, in flight ≤ `concurrent`; 0 = no limit on that
   * dimension (the default: tests where the limit is not the subject keep it off).
   */
  rateLimit: RateLimit;
  /**
   * Which `brand-topics` catalogue a domain gets: by exact domain, `*` for all others; a domain
   * under neither is read from its words (catalogue/industries/industries.ts). Empty by default.
   */
  industries: IndustryMap;
}

/** The limits switched off. */
export const UNLIMITED: RateLimit = { perSecond: 0, concurrent: 0 };

export const DEFAULT_SETTINGS: SimulatorSettings = {
  settleMode: "reads",
  settleReads: 2,
  settleMs: 3000,
  usedLagReads: 0,
  enforcementLagMs: 0,
  latencyMs: 0,
  usedLagMs: 0,
  usedLagMaxMs: 0,
  notReadyTransfers: 0,
  listLagReads: 0,
  publishReads: 0,
  deletingReads: 0,
  rateLimit: UNLIMITED,
  industries: {},
};

const count = z.number().int().min(0).max(1_000_000);
const millis = z.number().int().min(0).max(3_600_000);

/** A field left out is 0 (no limit), so `{rateLimit: {}}` turns both off. */
const rateLimit = z
  .object({ perSecond: count.default(0), concurrent: count.default(0) })
  .strict()
  .transform((limit): RateLimit => ({ perSecond: limit.perSecond, concurrent: limit.concurrent }));

export const settingsPatchSchema = z
  .object({
    settleMode: z.enum(["reads", "time"]),
    settleReads: count,
    settleMs: millis,
    usedLagReads: count,
    enforcementLagMs: millis,
    latencyMs: millis,
    usedLagMs: millis,
    usedLagMaxMs: millis,
    notReadyTransfers: count,
    listLagReads: count,
    publishReads: count,
    deletingReads: count,
    rateLimit,
    industries: z.record(z.string().trim().toLowerCase().min(1), z.enum([...INDUSTRIES, "generic"])),
  })
  .partial()
  .strict();

export function resolveSettings(patch: Partial<SimulatorSettings> = {}): SimulatorSettings {
  return { ...DEFAULT_SETTINGS, ...settingsPatchSchema.parse(patch) };
}
