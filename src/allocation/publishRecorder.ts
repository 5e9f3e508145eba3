import type { FlagSource } from "../config/flags.ts";
import { extendPublishWindow } from "../db/allocation/extendPublishWindow.ts";
import { loosenPublishBound } from "../db/allocation/loosenPublishBound.ts";
import { recordPublish } from "../db/allocation/recordPublish.ts";
import type { DbExecutor } from "../db/database.ts";
import { type Clock, monotonicMsOf } from "../domain/clock.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { Logger } from "../observability/logger.ts";
import { takePublishBasis } from "./publishBasis.ts";
import { publishWindowOf } from "./publishBound.ts";

export interface PublishRecorderDeps {
  db: DbExecutor;
  clock: Clock;
  logger: Logger;
  env?: FlagSource;
}

/**
 * The gateway client with every project publish remembered per workspace (allocation_publishes),
 * whoever makes it: upstream's `used` catches up asynchronously after a publish, and a release
 * must not trust a read inside that lag (releaseSurplus, ADR 0001 addendum). Decorating the client
 * once at composition covers every publish call site, present and future, without a seam of its
 * own. A publish inside its sub-workspace's guarded section also records what the section's read
 * says it moved (publishBasis.ts, docs/decisions/0030), which lets rebalancing lower the
 * sub-workspace inside the window.
 *
 * The record is written **before** the call, and a publish whose record cannot be written is not
 * sent: a record lost after the call — a database blip that may also cost the section its lock —
 * would let another process, taking the lock next, release from a read that lags the publish. After
 * the call, answered or not (a timed-out publish may have committed), the window restarts from then
 * (best effort: unwritten, it started at the record, only the call's duration earlier).
 *
 * Every delete that can lower usage (a project, prompts, model assignments) marks an open window's
 * bound loose, after the call for the same reason (docs/decisions/0030, addendum); best effort.
 */
export function withPublishRecording(gateway: GatewayClient, deps: PublishRecorderDeps): GatewayClient {
  const projects = gateway.projects;
  const loosen = (workspaceId: string) =>
    loosenPublishBound(deps.db, workspaceId, publishWindowOf(deps)).catch((error: unknown) =>
      deps.logger.warn(
        { err: error, workspaceId },
        "allocation: could not mark a delete in the publish window",
      ),
    );
  /** `call`, then `workspaceId`'s open publish window marked loose, whatever the call's outcome. */
  const deleting = async <T>(workspaceId: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } finally {
      await loosen(workspaceId);
    }
  };
  return {
    ...gateway,
    projects: {
      ...projects,
      publishProject: async (bearer, workspaceId, projectId) => {
        await recordPublish(deps.db, {
          subWorkspaceId: workspaceId,
          now: deps.clock.databaseTime?.(),
          basis: takePublishBasis(workspaceId),
          publishLagMs: publishWindowOf(deps).publishLagMs,
          monotonicMs: () => monotonicMsOf(deps.clock),
        });
        try {
          return await projects.publishProject(bearer, workspaceId, projectId);
        } finally {
          await extendPublishWindow(deps.db, workspaceId, deps.clock.databaseTime?.()).catch(
            (error: unknown) =>
              deps.logger.warn(
                { err: error, workspaceId },
                "allocation: could not restart a publish's window",
              ),
          );
        }
      },
      deleteProject: (bearer, workspaceId, projectId, options) =>
        deleting(workspaceId, () => projects.deleteProject(bearer, workspaceId, projectId, options)),
      deletePrompts: (bearer, workspaceId, projectId, promptIds) =>
        deleting(workspaceId, () => projects.deletePrompts(bearer, workspaceId, projectId, promptIds)),
      deleteProjectAiModels: (bearer, workspaceId, projectId, assignmentIds) =>
        deleting(workspaceId, () =>
          projects.deleteProjectAiModels(bearer, workspaceId, projectId, assignmentIds),
        ),
    },
  };
}
