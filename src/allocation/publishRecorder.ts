import type { FlagSource } from "../config/flags.ts";
import { loosenPublishBound } from "../db/allocation/loosenPublishBound.ts";
import type { DbExecutor } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { Logger } from "../observability/logger.ts";
import { publishWindowOf } from "./publishBound.ts";

export interface PublishRecorderDeps {
  db: DbExecutor;
  clock: Clock;
  logger: Logger;
  env?: FlagSource;
}

/**
 * The gateway client with every delete that can lower usage (a project, prompts, model
 * assignments) marking an open publish window's bound loose, after the call, answered or not
 * (docs/decisions/0030, addendum); best effort. Decorating the client once at composition covers
 * every delete call site. Publishes themselves are recorded by the metered-write guard, which every
 * publish goes through (`PUBLISH_CALL_SITE`, guardedSection.ts).
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
