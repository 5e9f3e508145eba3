import type { Need, Units } from "./allocation.ts";
import type { MeteringState } from "./metering.ts";

/**
 * The seam between the operations that write upstream (markets, prompts, models, generation,
 * deactivation) and just-in-time allocation (spec/allocation.md §5). Every metered upstream write
 * runs inside a `section`, which was told up front the units the whole section needs; every delete
 * that frees units is followed by `releaseSurplus`. The allocation module implements it
 * (`createAllocationGuard`); the composition root hands its factory to every operation.
 *
 * Why sections and not one guard per write: a guard checks headroom with one upstream read of the
 * sub-workspace's resources, and SPEC §7 allows one such read per metered API request. A request
 * usually makes several metered writes into one sub-workspace (prompt create + publish; project
 * create + model adds + publish), so it opens ONE section per written sub-workspace with the sum
 * of their needs, and runs every write through the section's `write`.
 */

/**
 * Where a guard applies: the brand's target workspace and who acts. The one shape every guard is
 * built from; an absent request id (a job, an operator run) is `null`, as the ledger records it.
 */
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
  requestId: string | null;
  /**
   * The org's parent metering as loaded with the org (spec/allocation.md §13): with the switch on,
   * `unmetered` makes the guard a pass-through; `unknown` is guarded as `metered`.
   */
  metering: MeteringState;
}

export type ReleaseReason = "release" | "deactivate" | "sweep";

/**
 * What a section or a write needs: the units, or the reads that decide them. A function lets the
 * guard overlap those reads (a project's texts, say) with its own resources read: the critical
 * path of a metered request is then guard read → write(s) → publish, not reads → guard read → …
 */
/**
 * A section's need. A need read from what another section may change meanwhile (a project's model
 * set or texts) is a function, so the guard can tell when it started (src/allocation/modelSetChanges.ts)
 * — or worked out under the lock (`SectionOptions.needUnderLock`); a fixed need is one no such
 * change can make short.
 */
export type NeedSource = Need | (() => Promise<Need>);

/** The units of a NeedSource (runs its reads when it is a function). */
export async function needOf(source: NeedSource): Promise<Need> {
  return typeof source === "function" ? source() : source;
}

/**
 * The call site of a model add: the guard announces it around its call, since a section that
 * worked its need out meanwhile may stage more than that need said (src/allocation/modelSetChanges.ts).
 */
export const MODEL_ADD_CALL_SITE = "modelAdd";

/**
 * The call site of a publish: the guard records it before it is sent — with the section's basis
 * inside a guarded section (src/allocation/guardedSection.ts) — since upstream's `used` lags it.
 */
export const PUBLISH_CALL_SITE = "publish";

/**
 * One metered upstream write inside a section. `callSite` names it for metrics (`projectCreate`,
 * `promptCreate`, `modelAdd`, `publish`). `stages` is what this one write stages (absent = `{}`,
 * e.g. publish): after a metered-quota 405 it is re-ensured against a fresh read before the retry
 * (spec/allocation.md §6), since a rejected write staged nothing. As a function it is asked only
 * then — the write may first re-read what decided it (a model set remembered from before).
 */
export type SectionWrite = <R>(callSite: string, fn: () => Promise<R>, stages?: NeedSource) => Promise<R>;

export interface SectionOptions {
  /** Work the need out only once the sub-workspace's lock is held (see `section`). */
  needUnderLock?: boolean;
}

export interface MeteredWriteGuard {
  /**
   * Makes sure the sub-workspace's allocation covers `need` — the sum of what every write of the
   * section stages — then runs `work`, whose metered writes all go through its `write`. While the
   * section runs, no other request (in any process) can stage units on the sub-workspace, so
   * headroom ensured at the start is still there for the last write. A `need` function runs
   * alongside the lock and the guard's own read; `work` starts once both are done — or, with
   * `needUnderLock`, once the lock is held, for a need that counts what another section may change
   * meanwhile (the texts a model add stages one unit each for).
   */
  section<T>(
    need: NeedSource,
    work: (write: SectionWrite) => Promise<T>,
    options?: SectionOptions,
  ): Promise<T>;
  /** A section of one write: `section(need, (write) => write(callSite, fn, need))`. */
  singleWrite<T>(callSite: string, need: NeedSource, fn: () => Promise<T>): Promise<T>;
  /** Best-effort: lowers the allocation to what usage needs (never throws, never fails a request). */
  releaseSurplus(floor: Units, reason: ReleaseReason): Promise<void>;
}

export type MeteredWriteGuardFactory = (context: MeteredWriteContext) => MeteredWriteGuard;
