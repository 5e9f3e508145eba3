import { AsyncLocalStorage } from "node:async_hooks";

import type { PublishBasisValues } from "../db/allocation/recordPublish.ts";
import { DIMENSIONS, type Need, type Units, type WorkspaceResources } from "../domain/allocation.ts";

/**
 * What a guarded section knows a publish inside it can move (docs/decisions/0030), kept in the
 * async context of the section that holds the sub-workspace's allocation lock: the guard's read
 * (`used`, `drafted`, when it started on the process's monotonic clock) and the section's staged
 * need. The publish recorder takes it when a publish of that sub-workspace runs inside the
 * section, and only then — a publish outside any section of its sub-workspace finds nothing and is
 * recorded without a basis (the conservative rule). Every Serenity write into a sub-workspace runs
 * under its lock, so nothing but this section can stage units there between the read and the
 * publish.
 */

interface Basis {
  /** When the earliest read the basis rests on started (monotonic milliseconds). */
  readAtMs: number;
  usedBefore: Units;
  moved: Units;
}

interface Slot {
  /** The section's resources reads, by the object they answered (to date the one ensure plans from). */
  reads: WeakMap<WorkspaceResources, number>;
  basis?: Basis;
  /** The section's need may be short of what its writes stage: its publishes get no basis. */
  distrusted?: boolean;
  /**
   * The model-set changes the sub-workspace should show at a publish of the section: what it showed
   * before the section worked its need out, plus the section's own announcements. More means a model
   * was added by another section meanwhile; the publish's record checks it in its statement.
   */
  modelChanges?: number;
}

const sections = new AsyncLocalStorage<Map<string, Slot>>();

/** Runs `work` as the outermost section of `subWorkspaceId` (the allocation lock's `enter`). */
export function withPublishBasisScope<T>(subWorkspaceId: string, work: () => Promise<T>): Promise<T> {
  const next = new Map(sections.getStore());
  next.set(subWorkspaceId, { reads: new WeakMap() });
  return sections.run(next, work);
}

/** Remembers when (monotonic milliseconds) a resources read of `workspaceId` inside its section started. */
export function noteSectionRead(workspaceId: string, resources: WorkspaceResources, readAtMs: number): void {
  sections.getStore()?.get(workspaceId)?.reads.set(resources, readAtMs);
}

/**
 * The section's ensure read `read` (as upstream answered it) and planned for `need`: a publish
 * after it moves at most `drafted + need` into `used`. The read's start is what `noteSectionRead`
 * remembered for it (else `fallbackReadAtMs`). A second ensure in the same section (a 405's
 * re-ensure) only widens the basis: the lowest `used` and the largest `used + drafted + need` of
 * the two, the earliest read time — never narrower than either.
 */
export function notePublishBasis(
  subWorkspaceId: string,
  read: { resources: WorkspaceResources; fallbackReadAtMs: number },
  need: Need,
): void {
  const slot = sections.getStore()?.get(subWorkspaceId);
  if (!slot) return;
  const readAtMs = slot.reads.get(read.resources) ?? read.fallbackReadAtMs;
  const usedBefore = { projects: 0, prompts: 0 };
  const moved = { projects: 0, prompts: 0 };
  const previous = slot.basis;
  for (const dimension of DIMENSIONS) {
    const { used, drafted } = read.resources[dimension];
    const total = used + drafted + Math.max(0, need[dimension] ?? 0);
    usedBefore[dimension] = previous ? Math.min(previous.usedBefore[dimension], used) : used;
    const bound = previous
      ? Math.max(previous.usedBefore[dimension] + previous.moved[dimension], total)
      : total;
    moved[dimension] = bound - usedBefore[dimension];
  }
  slot.basis = { readAtMs: previous ? Math.min(previous.readAtMs, readAtMs) : readAtMs, usedBefore, moved };
}

/**
 * The section saw `changes` model-set changes before working its need out (modelSetChanges.ts). A
 * section nested in one that already expects a count and sees another leaves no basis.
 */
export function expectModelChanges(subWorkspaceId: string, changes: number): void {
  const slot = sections.getStore()?.get(subWorkspaceId);
  if (!slot) return;
  if (slot.modelChanges !== undefined && slot.modelChanges !== changes) slot.distrusted = true;
  else slot.modelChanges = changes;
}

/** The section announced a model add (its begin or its end): one more change is its own. */
export function countOwnModelChange(subWorkspaceId: string): void {
  const slot = sections.getStore()?.get(subWorkspaceId);
  if (slot?.modelChanges !== undefined) slot.modelChanges += 1;
}

/**
 * The section's need may be short of what its writes stage, by an amount it cannot know (a model
 * set changed while it was worked out, modelSetChanges.ts): its publishes are recorded without a
 * basis.
 */
export function distrustPublishBasis(subWorkspaceId: string): void {
  const slot = sections.getStore()?.get(subWorkspaceId);
  if (slot) slot.distrusted = true;
}

/**
 * The basis for a publish of `subWorkspaceId` now, when it runs inside that sub-workspace's section
 * after an ensure. What it moves is `used` from then on: a later publish of the same section starts
 * from the bound and moves nothing more.
 */
export function takePublishBasis(subWorkspaceId: string): PublishBasisValues | undefined {
  const slot = sections.getStore()?.get(subWorkspaceId);
  const basis = slot?.basis;
  if (!slot || !basis || slot.distrusted) return undefined;
  const bound: Units = { projects: 0, prompts: 0 };
  for (const dimension of DIMENSIONS) bound[dimension] = basis.usedBefore[dimension] + basis.moved[dimension];
  slot.basis = { readAtMs: basis.readAtMs, usedBefore: bound, moved: { projects: 0, prompts: 0 } };
  return {
    readAtMs: basis.readAtMs,
    usedBefore: basis.usedBefore,
    moved: basis.moved,
    ...(slot.modelChanges !== undefined ? { modelChanges: slot.modelChanges } : {}),
  };
}
