import type { SimulatorStore } from "./store/simulatorStore.ts";
import {
  DIMENSIONS,
  type PerDimension,
  type SimProject,
  type SimWorkspace,
  type UnitCounts,
} from "./store/types.ts";

/**
 * The metering rules of spec/gateway.md §3, judged on the project's own workspace: a sub-workspace
 * spends its own allocation, a parent (or flat) workspace spends the pool it holds. Only metered
 * workspaces (the root's `ai` product with `limits_enabled`) are ever refused.
 */

/** The total writes are judged against: during the enforcement lag after a top-up, the old one. */
export function effectiveTotal(
  workspace: SimWorkspace,
  dimension: keyof PerDimension<number>,
  now: number,
): number {
  const lag = workspace.enforcement[dimension];
  const total = workspace.resources[dimension].total;
  return lag && now < lag.until ? Math.min(lag.previousTotal, total) : total;
}

export function hasRoom(counts: UnitCounts, total: number, need: number): boolean {
  return counts.used + counts.drafted + need <= total;
}

/** May a write stage `need` more units here? All or nothing over the dimensions it names. */
export function canStage(
  store: SimulatorStore,
  workspace: SimWorkspace,
  need: Partial<PerDimension<number>>,
  now: number,
): boolean {
  if (!store.isMetered(workspace)) return true;
  return DIMENSIONS.every((dimension) => {
    const units = need[dimension] ?? 0;
    return (
      units <= 0 || hasRoom(workspace.resources[dimension], effectiveTotal(workspace, dimension, now), units)
    );
  });
}

/**
 * Publish re-checks the workspace with drafted included: it is refused when a dimension the project
 * has staged units in is already over its total (a total lowered after the units were staged).
 */
export function canPublish(
  store: SimulatorStore,
  workspace: SimWorkspace,
  project: SimProject,
  now: number,
): boolean {
  if (!store.isMetered(workspace)) return true;
  return DIMENSIONS.every(
    (dimension) =>
      project.staged[dimension] <= 0 ||
      hasRoom(workspace.resources[dimension], effectiveTotal(workspace, dimension, now), 0),
  );
}

/** Prompt units a write of `newTexts` texts costs on a project with `models` enabled models. */
export function promptUnits(newTexts: number, models: number): number {
  return newTexts * models;
}
