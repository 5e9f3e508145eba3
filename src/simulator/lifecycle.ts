import type { SimProject, SimWorkspace } from "./store/types.ts";

/**
 * The status a read reports. `consume` spends one `not ready` observation (reads mode and
 * `/__sim/status`); time mode answers `not ready` until `settleUntil`. A zombie's settled status is
 * itself `not ready`.
 */
export function observeStatus(workspace: SimWorkspace, now: number, consume: boolean): string {
  if (workspace.notReadyReads > 0) {
    if (consume) workspace.notReadyReads -= 1;
    return "not ready";
  }
  if (now < workspace.settleUntil) return "not ready";
  return workspace.status;
}

export function isReadyStatus(status: string): boolean {
  const normalised = status.trim().toLowerCase();
  return normalised === "created" || normalised === "active";
}

function hasUnpublishedChanges(project: SimProject): boolean {
  if (project.dirty || project.staged.projects > 0 || project.staged.prompts > 0) return true;
  for (const prompt of project.prompts.values()) if (!prompt.live) return true;
  for (const tag of project.tags.values()) if (!tag.live) return true;
  return false;
}

/** `publish_status` of spec/gateway.md §4; `consume` spends one `publishing` read. */
export function publishStatusOf(project: SimProject, consume: boolean): string {
  if (project.publishingReads > 0) {
    if (consume) project.publishingReads -= 1;
    return "publishing";
  }
  if (project.publishState === "live") {
    return hasUnpublishedChanges(project) ? "live_with_unpublished_updates" : "live";
  }
  return project.publishState;
}
