import { readSectionStart, type SectionStart } from "../db/allocation/acquireAllocationLock.ts";
import { extendPublishWindow } from "../db/allocation/extendPublishWindow.ts";
import { findLastPublish } from "../db/allocation/findLastPublish.ts";
import type { LastPublish } from "../db/allocation/findLastPublishes.ts";
import { type PublishBasisValues, recordPublish } from "../db/allocation/recordPublish.ts";
import { recordSection } from "../db/allocation/recordSection.ts";
import { DIMENSIONS, type Need, type Units, type WorkspaceResources } from "../domain/allocation.ts";
import type { HeldSection } from "../locks/reentrantLock.ts";
import type { AllocationDeps, AllocationTarget } from "./allocationDeps.ts";
import type { ReleaseNote } from "./databaseAllocationLock.ts";
import { publishWindowOf } from "./publishBound.ts";
import { publishLagMs } from "./publishLag.ts";

/**
 * What a guarded section knows and owes, passed explicitly from the lock to its ensure and to its
 * writes (docs/decisions/0043): the statement that took the lease answered the last publish and
 * the entry's version; the section's read (`used`, `drafted`) and staged need make the
 * basis of a publish inside it (docs/decisions/0030) — all a publish there can move, since every
 * Serenity write into a sub-workspace runs under its lock. The read and the staged units are
 * written to the resources record once, together with the section's first publish (before it is
 * sent) or when the section ends; the publish's window restarts with the lease's release.
 */
export interface GuardedSection {
  /** The database's time the lease was taken (or the section started): no later than its reads. */
  lockedAt: Date;
  /** The last publish as the lease found it; undefined = none recorded. */
  lastPublish?: LastPublish;
  /** The section's latest resources read, and when it started (app clock). */
  read?: { resources: WorkspaceResources; at: Date };
  basis?: { usedBefore: Units; moved: Units };
  /** The section's need may be short of what its writes stage: its publishes get no basis. */
  distrusted: boolean;
  /**
   * The version the sub-workspace's entry should hold at a publish of the section: what it held
   * before the section worked its need out, plus the section's own announcements. More means a model
   * was added by another section meanwhile; the publish's record checks it in its statement.
   */
  version?: number;
  /** Staged units not yet written to the record. */
  staged: Units;
  /** Whether the read was written to the record. */
  recorded: boolean;
  held: HeldSection;
}

type Deps = Pick<AllocationDeps, "db" | "clock" | "env" | "events" | "logger">;

/**
 * The section of the lock `held`: the outermost section's, shared by the sections nested in it.
 * `first` is what the lease's first attempt answered before the need's reads started (undefined
 * for a nested section or a lock that answers nothing). `modelsMatter`: the need is read from the
 * project before the lock is held, so a model added meanwhile may leave it short.
 */
export async function sectionOf(
  deps: Deps,
  subWorkspaceId: string,
  held: HeldSection,
  first: SectionStart | undefined,
  modelsMatter: boolean,
): Promise<GuardedSection> {
  const open = held.scope.section as GuardedSection | undefined;
  if (open) return open;
  let start = held.state as SectionStart | undefined;
  // A lease taken racing a release, or a lock that answers nothing: read the start under the lease.
  // So too where a test drives the database's time by hand and its lock ran on another clock.
  const handDriven = deps.clock.databaseTime?.();
  if (!start?.fresh || (handDriven && handDriven.getTime() !== start.lockedAt.getTime())) {
    start = await readSectionStart(
      deps.db,
      subWorkspaceId,
      deps.clock.databaseTime?.(),
      publishLagMs(deps.env),
    );
  }
  const section: GuardedSection = {
    lockedAt: start.lockedAt,
    ...(start.lastPublish ? { lastPublish: start.lastPublish } : {}),
    distrusted: false,
    staged: { projects: 0, prompts: 0 },
    recorded: false,
    held,
  };
  if (modelsMatter) {
    const before = (first ?? start).entry;
    if (before.announced) section.distrusted = true;
    else section.version = before.version;
  }
  held.scope.section = section;
  return section;
}

/**
 * The last publish to plan from: as the lease found it, or read again once the section published
 * (a nested section's ensure) or after a 405 (`fresh`).
 */
export async function lastPublishFor(
  deps: Deps,
  subWorkspaceId: string,
  section: GuardedSection | undefined,
  fresh: boolean,
): Promise<LastPublish | undefined> {
  if (section && !fresh && !section.held.releaseNote) return section.lastPublish;
  return findLastPublish(deps.db, subWorkspaceId, publishWindowOf(deps));
}

/**
 * The section's ensure read `read` (as upstream answered it, started at `at`) and planned for
 * `need`: a publish after it moves at most `drafted + need` into `used`. A second ensure in the same
 * section (a 405's re-ensure, a nested section) only widens the basis: the lowest `used` and the
 * largest `used + drafted + need` of the two — never narrower than either.
 */
export function noteRead(section: GuardedSection, read: WorkspaceResources, at: Date, need: Need): void {
  section.read = { resources: read, at };
  const usedBefore = { projects: 0, prompts: 0 };
  const moved = { projects: 0, prompts: 0 };
  const previous = section.basis;
  for (const dimension of DIMENSIONS) {
    const { used, drafted } = read[dimension];
    const total = used + drafted + Math.max(0, need[dimension] ?? 0);
    usedBefore[dimension] = previous ? Math.min(previous.usedBefore[dimension], used) : used;
    const bound = previous
      ? Math.max(previous.usedBefore[dimension] + previous.moved[dimension], total)
      : total;
    moved[dimension] = bound - usedBefore[dimension];
  }
  section.basis = { usedBefore, moved };
}

/** What the section's writes will stage (its need, §5): written to the record with the read. */
export function noteStaged(section: GuardedSection, need: Need): void {
  for (const dimension of DIMENSIONS) section.staged[dimension] += Math.max(0, need[dimension] ?? 0);
}

/** The section announced a model add (its begin or its end): one more version is its own. */
export function countOwnAnnouncement(section: GuardedSection): void {
  if (section.version !== undefined) section.version += 1;
}

/**
 * The basis for a publish now. What it moves is `used` from then on: a later publish of the same
 * section starts from the bound and moves nothing more.
 */
function takeBasis(section: GuardedSection): PublishBasisValues | undefined {
  const basis = section.basis;
  if (!basis || section.distrusted) return undefined;
  const bound: Units = { projects: 0, prompts: 0 };
  for (const dimension of DIMENSIONS) bound[dimension] = basis.usedBefore[dimension] + basis.moved[dimension];
  section.basis = { usedBefore: bound, moved: { projects: 0, prompts: 0 } };
  return {
    readAt: section.lockedAt,
    usedBefore: basis.usedBefore,
    moved: basis.moved,
    ...(section.version !== undefined ? { version: section.version } : {}),
  };
}

/**
 * Writes what the section has not yet written — its read and staged units, and `publish` when it is
 * about to publish — in one statement. Before a publish it must succeed (unrecorded, the publish is
 * not sent); at the section's end it is best effort (logged and counted: the record is a view).
 */
async function writeSection(
  deps: Deps,
  target: AllocationTarget,
  section: GuardedSection,
  publish: boolean,
): Promise<void> {
  const record = {
    orgId: target.orgId,
    subWorkspaceId: target.subWorkspaceId,
    now: deps.clock.databaseTime?.(),
    publishLagMs: publishLagMs(deps.env),
    ...(publish ? { basis: takeBasis(section) } : {}),
  };
  const staged = section.staged;
  const anyStaged = staged.projects > 0 || staged.prompts > 0;
  const read = section.recorded ? undefined : section.read;
  if (!read && !anyStaged) {
    if (publish) await recordPublish(deps.db, record);
    return;
  }
  const written = await recordSection(deps.db, {
    ...record,
    ...(read ? { read } : {}),
    staged,
    stagedAt: deps.clock.now(),
    lockedAt: section.lockedAt,
    publishing: publish,
  });
  section.staged = { projects: 0, prompts: 0 };
  section.recorded = true;
  deps.events.emit("allocation.recordWrite", { source: "section", outcome: written ? "recorded" : "older" });
}

/** A publish inside the section: recorded (with its basis) before it is sent; its window restarts at the release. */
export async function publishInSection<T>(
  deps: Deps,
  target: AllocationTarget,
  section: GuardedSection,
  publish: () => Promise<T>,
): Promise<T> {
  await writeSection(deps, target, section, true);
  const note: ReleaseNote = { restartPublishWindow: true, now: () => deps.clock.databaseTime?.() };
  section.held.releaseNote = note;
  return publish();
}

/** What the section has not written yet goes to the record, best effort (before a top-up, at its end). */
export async function flushSection(
  deps: Deps,
  target: AllocationTarget,
  section: GuardedSection,
): Promise<void> {
  try {
    await writeSection(deps, target, section, false);
  } catch (error) {
    deps.logger.warn(
      { err: error, workspaceId: target.subWorkspaceId },
      "allocation: could not write the resources record",
    );
    deps.events.emit("allocation.recordWrite", { source: "section", outcome: "failed" });
  }
}

/**
 * A publish outside a guarded section (the switch off, an unmetered org, a flat brand): recorded
 * without a basis before it is sent (unrecorded, not sent — a release elsewhere must not trust a
 * read inside its lag), its window restarted after it is answered or not (best effort).
 */
export async function publishUnguarded<T>(
  deps: Deps,
  orgId: string,
  workspaceId: string | null,
  publish: () => Promise<T>,
): Promise<T> {
  if (!workspaceId) return publish();
  await recordPublish(deps.db, {
    orgId,
    subWorkspaceId: workspaceId,
    now: deps.clock.databaseTime?.(),
    publishLagMs: publishLagMs(deps.env),
  });
  try {
    return await publish();
  } finally {
    await extendPublishWindow(deps.db, workspaceId, deps.clock.databaseTime?.()).catch((error: unknown) =>
      deps.logger.warn({ err: error, workspaceId }, "allocation: could not restart a publish's window"),
    );
  }
}
