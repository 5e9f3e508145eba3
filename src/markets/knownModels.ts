import type { DbExecutor } from "../db/database.ts";
import { forgetKnownModels } from "../db/markets/forgetKnownModels.ts";
import { saveKnownModels } from "../db/markets/saveKnownModels.ts";
import type { Clock } from "../domain/clock.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * A market's model set as Serenity knows it (table `market_models`), so a bulk create need not read
 * it upstream on its critical path. Serenity itself sets it (create market, replace models) and
 * remembers what it set; a set read upstream is remembered as of the moment the read started, and
 * never replaces a set known later (a change that finished meanwhile wins). Remembering is best
 * effort — the set is an optimisation, upstream stays the truth: a metered write refused for units
 * the remembered set did not count makes the writer read it again (createProjectPrompts).
 */
export interface KnownFactsDeps {
  db: DbExecutor;
  clock: Clock;
  logger: Logger;
}

/** Where a market's project lives. */
export interface MarketProject {
  marketId: string;
  workspaceId: string;
  projectId: string;
}

/** The project's model set read upstream (catalogue ids), remembered for the next request. */
export async function readAndRememberModels(
  deps: KnownFactsDeps,
  projects: Pick<ProjectEngineClient, "listProjectAiModels">,
  bearer: string,
  market: MarketProject,
): Promise<string[]> {
  const startedAt = deps.clock.now();
  const assignments = await projects.listProjectAiModels(bearer, market.workspaceId, market.projectId);
  const modelIds = assignments.map((assignment) => assignment.model.id);
  await rememberModels(deps, market, modelIds, startedAt);
  return modelIds;
}

/** Remembers `modelIds` as the market's set known at `knownAt` (default now); never fails the caller. */
export async function rememberModels(
  deps: KnownFactsDeps,
  market: MarketProject,
  modelIds: readonly string[],
  knownAt: Date = deps.clock.now(),
): Promise<void> {
  try {
    await saveKnownModels(deps.db, {
      marketId: market.marketId,
      projectId: market.projectId,
      modelIds,
      knownAt,
    });
  } catch (error) {
    deps.logger.warn({ err: error, marketId: market.marketId }, "could not remember a market's models");
  }
}

/**
 * Forgets the market's set before Serenity changes it upstream, so a change that fails half-way
 * (or a crash) leaves nothing stale behind: the next use reads upstream. Throws on a database
 * failure — the change must not start while a stale set could survive it.
 */
export async function forgetModels(deps: KnownFactsDeps, marketId: string): Promise<void> {
  await forgetKnownModels(deps.db, marketId);
}
