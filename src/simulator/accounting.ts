import type { SimulatorSettings } from "./settings.ts";
import {
  type Dimension,
  DIMENSIONS,
  type PerDimension,
  type SimProject,
  type SimWorkspace,
  type UnitCounts,
} from "./store/types.ts";

/** Stages units of a write: the workspace's `drafted` and the project's staged share grow together. */
export function stageUnits(
  workspace: SimWorkspace,
  project: SimProject,
  dimension: Dimension,
  units: number,
): void {
  if (units <= 0) return;
  workspace.resources[dimension].drafted += units;
  project.staged[dimension] += units;
}

/** Returns units of a delete: from the project's staged share first, then from its published share. */
export function returnUnits(
  workspace: SimWorkspace,
  project: SimProject,
  dimension: Dimension,
  units: number,
): void {
  const fromStaged = Math.min(units, project.staged[dimension]);
  project.staged[dimension] -= fromStaged;
  const counts = workspace.resources[dimension];
  counts.drafted = Math.max(0, counts.drafted - fromStaged);
  const fromPublished = Math.min(units - fromStaged, project.published[dimension]);
  project.published[dimension] -= fromPublished;
  counts.used = Math.max(0, counts.used - fromPublished);
  workspace.usedLag.pending[dimension] = Math.min(workspace.usedLag.pending[dimension], counts.used);
}

export function returnAllUnits(workspace: SimWorkspace, project: SimProject): void {
  for (const dimension of DIMENSIONS) {
    returnUnits(workspace, project, dimension, project.staged[dimension] + project.published[dimension]);
  }
}

/**
 * Publish: `drafted` drops at once, `used` grows at once in truth but reads catch up later (the
 * published units stay hidden for `usedLagReads` resource reads and `usedLagMs`, never past
 * `usedLagMaxMs` when it is set).
 */
export function publishUnits(
  workspace: SimWorkspace,
  project: SimProject,
  settings: SimulatorSettings,
  now: number,
): void {
  let moved = false;
  for (const dimension of DIMENSIONS) {
    const units = project.staged[dimension];
    if (units <= 0) continue;
    project.staged[dimension] = 0;
    project.published[dimension] += units;
    const counts = workspace.resources[dimension];
    counts.drafted = Math.max(0, counts.drafted - units);
    counts.used += units;
    if (settings.usedLagReads > 0 || settings.usedLagMs > 0) {
      workspace.usedLag.pending[dimension] += units;
      moved = true;
    }
  }
  if (moved) {
    workspace.usedLag.reads = settings.usedLagReads;
    const bounded = settings.usedLagMaxMs > 0;
    workspace.usedLag.until =
      now + (bounded ? Math.min(settings.usedLagMs, settings.usedLagMaxMs) : settings.usedLagMs);
    workspace.usedLag.endsBy = bounded ? now + settings.usedLagMaxMs : 0;
  }
}

/** The resources a read shows (used lagging after a publish); `consume` spends one lag read. */
export function readResources(
  workspace: SimWorkspace,
  now: number,
  consume: boolean,
): PerDimension<UnitCounts> {
  const lag = workspace.usedLag;
  if (lag.endsBy > 0 && now >= lag.endsBy) lag.reads = 0;
  const lagging = lag.reads > 0 || now < lag.until;
  const shown = {
    projects: { ...workspace.resources.projects },
    prompts: { ...workspace.resources.prompts },
  };
  if (lagging) {
    for (const dimension of DIMENSIONS) {
      shown[dimension].used = Math.max(0, shown[dimension].used - lag.pending[dimension]);
    }
  }
  if (consume && lag.reads > 0) lag.reads -= 1;
  if (lag.reads === 0 && now >= lag.until) lag.pending = { projects: 0, prompts: 0 };
  return shown;
}
