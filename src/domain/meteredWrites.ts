import type { Need, Units } from "./allocation.ts";

/**
 * The seam between the operations that write upstream (markets, prompts, models, generation,
 * deactivation) and just-in-time allocation (spec/allocation.md §5). Every metered upstream write
 * runs through `write`, with the units it needs; every delete that frees units is followed by
 * `releaseSurplus`. The allocation module provides the real guard; `passthroughGuard` is the
 * behaviour with dynamic allocation off.
 */

/** Where a guard applies: the brand's target workspace and who acts. */
export interface MeteredWriteContext {
  orgId: string;
  brandId: string;
  /** The brand's canonical sub-workspace; null for a flat brand. */
  subWorkspaceId: string | null;
  /** The org's parent workspace (the pool); null when the org has none. */
  parentWorkspaceId: string | null;
  /** Flat brands write into the parent: the pool itself is their allocation, never guarded. */
  flat: boolean;
  /** The caller's bearer (or a worker's exchanged credential), forwarded upstream. */
  bearer: string;
  requestId: string | undefined;
}

export type ReleaseReason = "release" | "deactivate" | "sweep";

export interface MeteredWriteGuard {
  /**
   * Runs one metered write (project create, prompt create, model add, publish) after making sure
   * the sub-workspace's allocation covers `need`; `callSite` names the call for metrics.
   */
  write<T>(callSite: string, need: Need, fn: () => Promise<T>): Promise<T>;
  /** Best-effort: lowers the allocation to what usage needs (never throws, never fails a request). */
  releaseSurplus(floor: Units, reason: ReleaseReason): Promise<void>;
}

export type MeteredWriteGuardFactory = (context: MeteredWriteContext) => MeteredWriteGuard;
