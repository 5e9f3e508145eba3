import type { MarketRow } from "../db/markets/marketRow.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { type Market, MISSING_PROJECT_STATUS } from "./market.ts";

/**
 * A market row with its upstream state: the project's publish status, its models and its text
 * count (three reads in parallel). A project gone upstream shows as `missing` with no models and
 * no prompts rather than failing the whole list; any other failure propagates.
 */
export async function describeMarket(
  projects: ProjectEngineClient,
  bearer: string,
  row: MarketRow,
): Promise<Market> {
  const base = {
    geoTargetId: row.geoTargetId,
    languageCode: row.languageCode,
    country: row.country,
    projectId: row.projectId,
    createdAt: row.createdAt,
  };
  if (!row.projectId) return { ...base, publishStatus: MISSING_PROJECT_STATUS, models: [], promptCount: 0 };
  const projectId = row.projectId;
  try {
    const [project, assignments, prompts] = await Promise.all([
      projects.getProject(bearer, row.workspaceId, projectId),
      projects.listProjectAiModels(bearer, row.workspaceId, projectId),
      projects.listPrompts(bearer, row.workspaceId, projectId, { draft: true, limit: 1 }),
    ]);
    return {
      ...base,
      publishStatus: project.publishStatus ?? "draft",
      models: assignments.map(({ model }) => ({ id: model.id, key: model.key, name: model.name })),
      promptCount: prompts.total,
    };
  } catch (error) {
    if (isGatewayError(error, "gone")) {
      return { ...base, publishStatus: MISSING_PROJECT_STATUS, models: [], promptCount: 0 };
    }
    throw error;
  }
}
