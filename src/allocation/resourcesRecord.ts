import type { DbExecutor } from "../db/database.ts";
import { recordResourcesRead } from "../db/resourceObservations/recordResourcesRead.ts";
import { recordTransferAnswer } from "../db/resourceObservations/recordTransferAnswer.ts";
import type { TransferTargets, WorkspaceResources } from "../domain/allocation.ts";
import type { AllocationDeps, AllocationTarget } from "./allocationDeps.ts";
import { publishLagMs } from "./publishLag.ts";
import type { AllocationUpstream } from "./upstreamPort.ts";

/**
 * The resources record's writers (spec/allocation.md §12, ADR 0020): everything Serenity learns of
 * a workspace's resources goes to `resource_observations`, dated by the app clock at the start of
 * the call that learned it. Recording is best effort — a database failure is logged and counted
 * and never fails the read, the transfer or the write it rides on (the record is a view of the
 * upstream, never the truth an operation acts on: guards and releases still read under the lock).
 */

interface RecordDeps extends Pick<AllocationDeps, "clock" | "events" | "logger" | "env"> {
  db: DbExecutor;
  upstream: Pick<AllocationUpstream, "readResources">;
}

/**
 * Reads a workspace's resources upstream for `who.orgId` (with `who.bearer`) and records the answer
 * (`title`: the family read's, for a workspace no brand points at).
 */
export async function observeResources(
  deps: RecordDeps,
  who: { orgId: string; bearer: string },
  workspaceId: string,
  title?: string,
): Promise<WorkspaceResources> {
  const observedAt = deps.clock.now();
  const resources = await deps.upstream.readResources(who.bearer, workspaceId);
  try {
    const recorded = await recordResourcesRead(deps.db, {
      orgId: who.orgId,
      workspaceId,
      resources,
      observedAt,
      readAgeMs: deps.clock.now().getTime() - observedAt.getTime(),
      publishLagMs: publishLagMs(deps.env),
      now: deps.clock.databaseTime?.(),
      title,
    });
    deps.events.emit("allocation.recordWrite", { source: "read", outcome: recorded ? "recorded" : "older" });
  } catch (error) {
    recordFailed(deps, "read", workspaceId, error);
  }
  return resources;
}

/**
 * Records an applied transfer: `planned` is the read it was planned from (under the same lock),
 * `startedAt` the clock before it was sent.
 */
export async function recordTransfer(
  deps: Omit<RecordDeps, "upstream">,
  target: AllocationTarget,
  planned: WorkspaceResources,
  targets: TransferTargets,
  startedAt: Date,
): Promise<void> {
  try {
    const recorded = await recordTransferAnswer(deps.db, {
      orgId: target.orgId,
      subWorkspaceId: target.subWorkspaceId,
      planned,
      targets,
      observedAt: startedAt,
    });
    deps.events.emit("allocation.recordWrite", {
      source: "transfer",
      outcome: recorded ? "recorded" : "older",
    });
  } catch (error) {
    recordFailed(deps, "transfer", target.subWorkspaceId, error);
  }
}

function recordFailed(
  deps: Pick<RecordDeps, "events" | "logger">,
  source: "read" | "transfer",
  workspaceId: string,
  error: unknown,
): void {
  deps.logger.warn({ err: error, workspaceId, source }, "allocation: could not write the resources record");
  deps.events.emit("allocation.recordWrite", { source, outcome: "failed" });
}
