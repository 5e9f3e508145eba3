import type { Principal } from "../auth/principal.ts";
import { type BrandContext, loadBrandContext } from "../brands/brandContext.ts";
import type { Db } from "../db/database.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import { RELEASE_FLOOR } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuard, MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import { atUpstreamEdge } from "../gateway/registryErrors.ts";
import type { MarketService } from "../markets/marketService.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "../markets/writeTarget.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import { type BulkItemOutcome, type BulkPromptItem, MAX_BULK_PROMPTS } from "./bulkOutcome.ts";
import type { ProjectPromptEntry } from "./projectPrompts.ts";
import { apiEntry } from "./promptEntries.ts";
import { taxonomyDimensions } from "./tagTaxonomy.ts";
import { type PromptWriteTarget, writePrompts } from "./writePrompts.ts";

export interface PromptServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  orgs: OrgService;
  markets: MarketService;
  gateway: GatewayClient;
  meteredWrites: MeteredWriteGuardFactory;
}

export interface PromptTagView {
  id: string;
  name: string;
  /** The taxonomy dimension (`origin`, `type`…) the tag is a value of; null for a tag outside it. */
  dimension: string | null;
}

export interface PromptView {
  id: string;
  text: string;
  tags: PromptTagView[];
  isDraft: boolean;
}

export interface PromptListQuery {
  geoTargetId: number;
  languageCode: string;
  includeDrafts?: boolean;
  page?: number;
  limit?: number;
}

function sliceKey(geoTargetId: number, languageCode: string): string {
  return `${geoTargetId}:${languageCode.toLowerCase()}`;
}

/** Prompts of a brand's markets: bulk create with per-item outcomes, list, delete. */
export class PromptService {
  constructor(private readonly deps: PromptServiceDeps) {}

  /**
   * `POST …/serenity/prompts`: items are validated one by one (an invalid one fails alone), grouped
   * by market and written by `writePrompts` (one metered create and one publish per project, one
   * guarded section per workspace), and answered in request order.
   */
  async bulkCreate(
    principal: Principal,
    orgId: string,
    brandId: string,
    items: readonly BulkPromptItem[],
    ctx: { requestId: string | undefined } = { requestId: undefined },
  ): Promise<BulkItemOutcome[]> {
    if (items.length < 1 || items.length > MAX_BULK_PROMPTS) {
      throw new ServiceError("invalidRequest", {
        message: `items must hold 1 to ${MAX_BULK_PROMPTS} prompts`,
      });
    }
    const context = await loadBrandContext(this.deps, principal, orgId, brandId);
    const gateway = this.deps.gateway;
    const log = this.#log(ctx.requestId, context);
    const markets = new Map(
      (await listReadyMarkets(this.deps.db, brandId)).map((row) => [
        sliceKey(row.geoTargetId, row.languageCode),
        row,
      ]),
    );

    const outcomes: BulkItemOutcome[] = [];
    const byProject = new Map<string, PromptWriteTarget & { entries: ProjectPromptEntry[] }>();
    items.forEach((item, index) => {
      const checked = apiEntry(index, item, context.brand);
      if (!checked.ok) return outcomes.push(invalid(index, checked.message));
      const row = markets.get(sliceKey(item.geoTargetId, item.languageCode));
      if (!row?.projectId) {
        return outcomes.push({
          index,
          outcome: "failed",
          code: "notFound",
          message: "No market exists for this geoTargetId and languageCode.",
        });
      }
      const target = byProject.get(row.id) ?? {
        market: { id: row.id, workspaceId: row.workspaceId, projectId: row.projectId },
        entries: [],
      };
      target.entries.push(checked.entry);
      byProject.set(row.id, target);
    });

    const written = await writePrompts(
      {
        projects: gateway.projects,
        logger: log,
        known: { db: this.deps.db, clock: this.deps.clock, logger: log },
      },
      {
        bearer: principal.bearer,
        createdBy: principal.sub,
        targets: [...byProject.values()],
        guardFor: (workspaceId) => this.#guard(context, workspaceId, principal.bearer, ctx.requestId),
      },
    );
    return [...outcomes, ...written].sort((a, b) => a.index - b.index);
  }

  /** `GET …/serenity/prompts`: one page of a market's prompts, published only unless drafts are asked for. */
  async list(
    principal: Principal,
    orgId: string,
    brandId: string,
    query: PromptListQuery,
  ): Promise<{ items: PromptView[]; page: number; total: number }> {
    const context = await loadBrandContext(this.deps, principal, orgId, brandId);
    const row = await this.deps.markets.readyMarket(brandId, query.geoTargetId, query.languageCode);
    const gateway = this.deps.gateway;
    const log = this.#log(undefined, context);
    const page = query.page ?? 1;
    const limit = Math.min(query.limit ?? 50, MAX_PROMPT_PAGE_SIZE);
    return atUpstreamEdge(log, "listPrompts", async () => {
      const ref = { bearer: principal.bearer, workspaceId: row.workspaceId, projectId: row.projectId };
      const [answer, dimensions] = await Promise.all([
        gateway.projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
          draft: query.includeDrafts ?? false,
          page,
          limit,
        }),
        taxonomyDimensions(gateway.projects, ref),
      ]);
      return {
        items: answer.items.map((prompt) => ({
          id: prompt.id,
          text: prompt.text,
          tags: prompt.tags.map((tag) => ({
            id: tag.id,
            name: tag.name ?? "",
            dimension: dimensions.get(tag.id) ?? null,
          })),
          isDraft: prompt.isNew,
        })),
        page: answer.page,
        total: answer.total,
      };
    });
  }

  /** `DELETE …/serenity/prompts`: deletes by id, publishes the change, then gives surplus back. */
  async delete(
    principal: Principal,
    orgId: string,
    brandId: string,
    input: { geoTargetId: number; languageCode: string; ids: string[] },
    ctx: { requestId: string | undefined } = { requestId: undefined },
  ): Promise<void> {
    const context = await loadBrandContext(this.deps, principal, orgId, brandId);
    const row = await this.deps.markets.readyMarket(brandId, input.geoTargetId, input.languageCode);
    const gateway = this.deps.gateway;
    const log = this.#log(ctx.requestId, context);
    const guard = this.#guard(context, row.workspaceId, principal.bearer, ctx.requestId);
    await atUpstreamEdge(log, "deletePrompts", async () => {
      await gateway.projects.deletePrompts(principal.bearer, row.workspaceId, row.projectId!, input.ids);
      await guard.singleWrite("publish", {}, () =>
        gateway.projects.publishProject(principal.bearer, row.workspaceId, row.projectId!),
      );
    });
    try {
      await guard.releaseSurplus(RELEASE_FLOOR, "release");
    } catch (error) {
      log.warn({ err: error }, "release after a prompt delete failed");
    }
  }

  /** The guard of the workspace a market's project lives in (flat when that is the org's parent). */
  #guard(
    context: BrandContext,
    workspaceId: string,
    bearer: string,
    requestId: string | undefined,
  ): MeteredWriteGuard {
    return meteredWriteGuardFor(this.deps.meteredWrites, marketWriteTarget(workspaceId, context.org), {
      orgId: context.org.id,
      brandId: context.brand.id,
      operation: { bearer, requestId },
    });
  }

  #log(requestId: string | undefined, context: BrandContext): Logger {
    return this.deps.logger.child({ requestId, orgId: context.org.id, brandId: context.brand.id });
  }
}

function invalid(index: number, message: string): BulkItemOutcome {
  return { index, outcome: "failed", code: "invalidRequest", message };
}
