/**
 * Each parent's own AI metering (spec/allocation.md §13, docs/decisions/0034). Live Semrush
 * provisions some parents with AI metering off: there every metered write is accepted whatever the
 * child's totals, and a transfer can only fail. So allocation follows each org's parent:
 *
 * - `metered`: the parent's `ai` product has `limits_enabled: true` — just-in-time allocation;
 * - `unmetered`: `limits_enabled: false` — nothing to allocate, the guard passes writes through;
 * - `unknown`: never read, or no read has succeeded yet — treated as `metered` (the safe side: a
 *   top-up on an unmetered parent can only fail, never overspend) while a read is scheduled.
 */
export type MeteringState = "metered" | "unmetered" | "unknown";

/** An org's metering and when it was read (`null` while unknown). */
export interface OrgMetering {
  state: MeteringState;
  asOf: Date | null;
}

export const UNKNOWN_METERING: OrgMetering = { state: "unknown", asOf: null };

/** What a parent's `ai` `limits_enabled` says (`null`: the answer carried no `ai` product). */
export function meteringOf(aiLimitsEnabled: boolean | null): MeteringState {
  if (aiLimitsEnabled === null) return "unknown";
  return aiLimitsEnabled ? "metered" : "unmetered";
}

/** Whether the guard allocates for an org in this state (everything but a known `unmetered`). */
export function allocates(state: MeteringState): boolean {
  return state !== "unmetered";
}

export type KnownMetering = Exclude<MeteringState, "unknown">;

/** A change between the two known states (`unknown` on either side is learning, not a flip). */
export function flipOf(
  previous: MeteringState,
  next: MeteringState,
): { from: KnownMetering; to: KnownMetering } | undefined {
  if (previous === "unknown" || next === "unknown" || previous === next) return undefined;
  return { from: previous, to: next };
}
