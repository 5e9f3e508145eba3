import type { Principal } from "../auth/principal.ts";
import { type BrandContext, loadBrandContext } from "../brands/brandContext.ts";
import { listReadyMarkets } from "../db/markets/listReadyMarkets.ts";
import { RELEASE_FLOOR } from "../domain/allocation.ts";
import { ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuard } from "../domain/meteredWrites.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import { atUpstreamEdge } from "../gateway/registryErrors.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "../markets/writeTarget.ts";
import type { Logger } from "../observability/logger.ts";
import { type BulkItemOutcome, type BulkPromptItem, MAX_BULK_PROMPTS } from "./bulkOutcome.ts";
import { keepDeletion } from "./deletionRecord.ts";
import type { ProjectPromptEntry } from "./projectPrompts.ts";
import { apiEntry } from "./promptEntries.ts";
import { listPromptPage, type PromptSort } from "./promptListing.ts";
import { PromptManagement } from "./promptManagement.ts";
import type { PromptServiceDeps } from "./promptServiceDeps.ts";
import { type PromptView, promptViewOf } from "./promptView.ts";
import { tagDimensions } from "./tagDimensions.ts";
import { type PromptWriteTarget, writePrompts } from "./writePrompts.ts";

export type { PromptServiceDeps } from "./promptServiceDeps.ts";
export type { PromptTagView, PromptView } from "./promptView.ts";

export interface PromptListQuery {
  geoTargetId: number;
  languageCode: string;
  includeDrafts?: boolean;
  /** Page mode (1-based): the page at (page − 1) × limit. Without it, cursor mode. */
  page?: number;
  limit?: number;
  cursor?: string;
  search?: string;
  /** Category and tag ids; a prompt carrying any of them matches. */
  categoryIds?: string[];
  tagIds?: string[];
  sort?: PromptSort;
  order?: "asc" | "desc";
}

function sliceKey(geoTargetId: number, languageCode: string): string {
  return `${geoTargetId}:${languageCode.toLowerCase()}`;
}

/** Prompts of a brand's markets: bulk create with per-item outcomes, list, delete. */
export class PromptService {
  /** Edit in place, categories, bulk delete across markets (spec/api.md §5). */
  readonly manage: PromptManagement;

  constructor(private readonly deps: PromptServiceDeps) {
    this.manage = new PromptManagement(deps);
  }

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

  /**
   * `GET …/serenity/prompts`: one page of a market's prompts from the upstream's own listing
   * (search, category/tag filter, sort; docs/decisions/0040), published only unless drafts are
   * asked for, with author and times from the prompts' metadata and a cursor for the next page.
   */
  async list(
    principal: Principal,
    orgId: string,
    brandId: string,
    query: PromptListQuery,
  ): Promise<{ items: PromptView[]; page: number; total: number; nextCursor: string | null }> {
    const context = await loadBrandContext(this.deps, principal, orgId, brandId);
    const row = await this.deps.markets.readyMarket(brandId, query.geoTargetId, query.languageCode);
    const gateway = this.deps.gateway;
    const log = this.#log(undefined, context);
    const limit = Math.min(query.limit ?? 50, MAX_PROMPT_PAGE_SIZE);
    return atUpstreamEdge(log, "listPrompts", async () => {
      const ref = { bearer: principal.bearer, workspaceId: row.workspaceId, projectId: row.projectId };
      const answer = await listPromptPage(gateway.projects, ref, {
        includeDrafts: query.includeDrafts ?? false,
        search: query.search,
        tagIds: [...(query.categoryIds ?? []), ...(query.tagIds ?? [])],
        sort: query.sort,
        order: query.order ?? "asc",
        limit,
        cursor: query.cursor,
        startAt: query.page === undefined ? undefined : (query.page - 1) * limit,
      });
      const dimensions = await tagDimensions(
        { db: this.deps.db, clock: this.deps.clock, logger: log },
        gateway.projects,
        { marketId: row.id, ref },
        answer.items.flatMap((prompt) => prompt.tags.map((tag) => tag.id)),
      );
      return {
        items: answer.items.map((prompt) => promptViewOf(prompt, dimensions)),
        page: query.page ?? Math.floor(answer.offset / limit) + 1,
        total: answer.total,
        nextCursor: answer.nextCursor,
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
    await keepDeletion(
      { db: this.deps.db, logger: log, now: this.deps.clock.now() },
      {
        orgId,
        brandId,
        marketId: row.id,
        promptIds: input.ids,
        actor: principal.sub,
        requestId: ctx.requestId,
      },
    );
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
