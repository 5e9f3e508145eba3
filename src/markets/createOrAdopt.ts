import type { DbExecutor } from "../db/database.ts";
import { isProjectTracked } from "../db/markets/isProjectTracked.ts";
import { GatewayError } from "../gateway/errors.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { CreateProjectRequest, Project } from "../gateway/types.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * Create-or-adopt for the upstream creates that are not idempotent (spec/provisioning.md §9).
 * A create that failed transiently — a 5xx, a 504 in front of a committed
 * write, a dropped connection — may or may not have made its resource. Before creating again, look
 * for what the first attempt may have made, by what Serenity named it; adopt it if it is there,
 * else create once more. Bounded: two creates at most, each followed by a look when it fails.
 */

/** Pages of a workspace's projects read when looking for a create's leftover. */
const LOOK_PAGES = 5;
const PAGE_SIZE = 100;

function isTransient(error: unknown): error is GatewayError {
  return error instanceof GatewayError && error.transient;
}

/**
 * A market's project: created, or — after a transient failure — the untracked project of exactly
 * this name in the workspace (Serenity names a market's project `<brand> <COUNTRY> <lang>`, and the
 * slice's reservation guarantees nobody else creates it meanwhile).
 */
export async function createOrAdoptProject(
  deps: { db: DbExecutor; projects: ProjectEngineClient; logger: Logger },
  bearer: string,
  workspaceId: string,
  request: CreateProjectRequest,
): Promise<Project> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.projects.createProject(bearer, workspaceId, request);
    } catch (error) {
      if (!isTransient(error)) throw error;
      deps.logger.warn(
        { ...error.toLog(), attempt },
        "project create failed transiently; looking for it by name",
      );
      const found = await findUntrackedProject(deps, bearer, workspaceId, request.name);
      if (found) {
        deps.logger.info({ projectId: found.id, attempt }, "adopted the project a failed create made");
        return found;
      }
      if (attempt >= 2) throw error;
    }
  }
}

async function findUntrackedProject(
  deps: { db: DbExecutor; projects: ProjectEngineClient },
  bearer: string,
  workspaceId: string,
  name: string,
): Promise<Project | undefined> {
  for (let page = 1; page <= LOOK_PAGES; page++) {
    const listed = await deps.projects.listProjects(bearer, workspaceId, { page, limit: PAGE_SIZE });
    for (const project of listed.items) {
      if (project.name === name && !(await isProjectTracked(deps.db, project.id))) return project;
    }
    if (page * PAGE_SIZE >= listed.total || listed.items.length === 0) return undefined;
  }
  return undefined;
}

/**
 * One model assignment: added, or — after a transient failure — found already on the project
 * (the add committed before its answer was lost). Otherwise one more add.
 */
export async function addOrFindModel(
  projects: ProjectEngineClient,
  ref: { bearer: string; workspaceId: string; projectId: string },
  modelId: string,
  logger?: Logger,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await projects.addProjectAiModel(ref.bearer, ref.workspaceId, ref.projectId, modelId);
      return;
    } catch (error) {
      if (!isTransient(error)) throw error;
      const assigned = await projects.listProjectAiModels(ref.bearer, ref.workspaceId, ref.projectId);
      if (assigned.some((assignment) => assignment.model.id === modelId)) {
        logger?.info({ modelId, attempt }, "a model add that failed transiently had been applied");
        return;
      }
      if (attempt >= 2) throw error;
    }
  }
}
