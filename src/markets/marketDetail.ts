import type { MarketRow } from "../db/markets/marketRow.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { readCategoryTree } from "./categoryTree.ts";
import { describeMarket } from "./describeMarket.ts";
import { type Market, MISSING_PROJECT_STATUS } from "./market.ts";

/** One market as `GET …/serenity/markets/:geoTargetId/:languageCode` shows it (spec/api.md §5). */
export interface MarketDetail extends Market {
  /** Whether the upstream finished the project's AI initialisation (`…/aio/init_status`); null when missing. */
  initialized: boolean | null;
  /** Categories of the market (its tag tree below `category`, every level). */
  categoryCount: number;
}

/** The market's upstream state (publish status, models, prompt count), init status and categories, read in parallel. */
export async function marketDetail(
  projects: ProjectEngineClient,
  bearer: string,
  row: MarketRow,
): Promise<MarketDetail> {
  const market = await describeMarket(projects, bearer, row);
  if (market.publishStatus === MISSING_PROJECT_STATUS || !row.projectId) {
    return { ...market, initialized: null, categoryCount: 0 };
  }
  const ref = { bearer, workspaceId: row.workspaceId, projectId: row.projectId };
  const [initialized, tree] = await Promise.all([
    projects.getInitStatus(bearer, row.workspaceId, row.projectId),
    readCategoryTree(projects, ref),
  ]);
  return { ...market, initialized, categoryCount: tree.nodes.length };
}
