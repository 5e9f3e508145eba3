import type { LastPublish, PublishWindow } from "../db/allocation/findLastPublishes.ts";
import { type Dimension, DIMENSIONS, type WorkspaceResources } from "../domain/allocation.ts";
import type { AllocationDeps } from "./allocationDeps.ts";
import { publishLagMs } from "./publishLag.ts";

/**
 * The publish-lag rule with what Serenity knows of its own publishes (docs/decisions/0030): inside
 * the window of a publish recorded with a bound, a read's `used` may be low by what the publish
 * moved, and never by more than the bound allows, so `used := max(read.used, bound)` is at least
 * the real `used` — while only Serenity writes there.
 */

/** The publish-lag window of `deps`: its length, and the time a test's clock drives by hand. */
export function publishWindowOf(deps: Pick<AllocationDeps, "clock" | "env">): PublishWindow {
  return { publishLagMs: publishLagMs(deps.env), now: deps.clock.databaseTime?.() };
}

/**
 * `resources` with `used` raised to what the sub-workspace's last publish bounds it by, while
 * inside its window: `min(used bound, read used + moved in window)` — the first never under-counts
 * what Serenity published (used before the publish plus everything it can have moved), the second
 * is tighter after a delete (a read inside the window misses at most what the window's publishes
 * moved). `undefined` when the window holds a publish with no bound, or a read the bound cannot
 * explain (more `used` than Serenity's own publishes can have made: another client wrote there).
 */
export function withinPublishBound(
  resources: WorkspaceResources,
  publish: LastPublish | undefined,
): WorkspaceResources | undefined {
  if (!publish?.inWindow) return resources;
  const bound = publish.bound;
  if (!bound) return undefined;
  if (DIMENSIONS.some((dimension) => resources[dimension].used > bound.used[dimension])) return undefined;
  const raised = (dimension: Dimension) => {
    const read = resources[dimension].used;
    return Math.max(read, Math.min(bound.used[dimension], read + bound.movedInWindow[dimension]));
  };
  return {
    projects: { ...resources.projects, used: raised("projects") },
    prompts: { ...resources.prompts, used: raised("prompts") },
  };
}

/**
 * The guard's own read of the sub-workspace it holds, raised to its last publish's bound inside
 * the window, so a section right after a publish plans from the usage that publish made instead of
 * a lagging read it would top up too little from (and meet a 405 for).
 *
 * Raised only while the bound is tight: once a delete landed in the window (`boundLoose`) the
 * bound may sit far above the real `used` — every project created and deleted again since the
 * window opened still counts — and a top-up planned from it would take units the sub-workspace
 * does not need, or be refused by a pool that could serve the real need. The read is then used as
 * it is, and only a 405 (`afterQuotaRejection`: upstream's own word that the read is low) raises
 * it to the loose bound. Outside the window, or when the publish has no bound or the read cannot
 * be explained by it, the read as it is.
 */
export function ownReadWithinPublishBound(
  read: WorkspaceResources,
  publish: LastPublish | undefined,
  options: { afterQuotaRejection?: boolean } = {},
): WorkspaceResources {
  if (publish?.boundLoose && !options.afterQuotaRejection) return read;
  return withinPublishBound(read, publish) ?? read;
}
