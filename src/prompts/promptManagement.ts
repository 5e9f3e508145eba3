import type { Principal } from "../auth/principal.ts";
import { loadBrandContext } from "../brands/brandContext.ts";
import { findMarket } from "../db/markets/findMarket.ts";
import { RELEASE_FLOOR } from "../domain/allocation.ts";
import { type ErrorCode, ServiceError } from "../domain/errors.ts";
import { atUpstreamEdge, upstreamFailure } from "../gateway/registryErrors.ts";
import type { CategoryNode } from "../markets/categoryTree.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "../markets/writeTarget.ts";
import { createCategory, deleteCategory, listCategories, updateCategory } from "./categories.ts";
import { keepDeletion } from "./deletionRecord.ts";
import { editPrompt, type PromptEdit } from "./editPrompt.ts";
import { type MarketScope, publishMarket } from "./marketScope.ts";
import type { PromptServiceDeps } from "./promptServiceDeps.ts";
import { checkCategory, checkPromptText } from "./promptText.ts";
import { type PromptView, promptViewOf } from "./promptView.ts";
import { tagDimensions } from "./tagDimensions.ts";

export interface MarketSlice {
  geoTargetId: number;
  languageCode: string;
}

type Ctx = { requestId: string | undefined };

/** One market's result in a bulk delete: 204, or the error's code. */
export type BulkDeleteOutcome =
  { index: number; deleted: number } | { index: number; code: ErrorCode; message: string };

/**
 * Day-to-day management of a brand's prompts and categories (spec/api.md §5, docs/decisions/0040):
 * edit in place, categories per market, bulk delete across markets. Tenancy first (the brand in the
 * org, the market in the brand: 404 otherwise), every upstream call paced by the budget, every
 * publish through the market's metered-write guard.
 */
export class PromptManagement {
  constructor(private readonly deps: PromptServiceDeps) {}

  async edit(
    principal: Principal,
    orgId: string,
    brandId: string,
    promptId: string,
    input: MarketSlice & { text?: string; category?: string | null },
    ctx: Ctx,
  ): Promise<PromptView> {
    const edit: PromptEdit = {};
    if (input.text !== undefined) edit.text = checked(checkPromptText(input.text));
    if (input.category !== undefined)
      edit.category = input.category === null ? null : checked(checkCategory(input.category));
    if (edit.text === undefined && edit.category === undefined) {
      throw new ServiceError("invalidRequest", { message: "text or category is required" });
    }
    const scope = await this.#scope(principal, orgId, brandId, input, ctx);
    return atUpstreamEdge(scope.log, "editPrompt", async () => {
      const prompt = await editPrompt(scope, promptId, edit, this.deps.clock.now());
      const dimensions = await tagDimensions(
        scope.known,
        scope.projects,
        { marketId: scope.marketId, ref: scope.ref },
        prompt.tags.map((tag) => tag.id),
      );
      return promptViewOf(prompt, dimensions);
    });
  }

  async categories(
    principal: Principal,
    orgId: string,
    brandId: string,
    slice: MarketSlice,
  ): Promise<CategoryNode[]> {
    const scope = await this.#scope(principal, orgId, brandId, slice, { requestId: undefined });
    return atUpstreamEdge(scope.log, "listCategories", () => listCategories(scope));
  }

  async createCategory(
    principal: Principal,
    orgId: string,
    brandId: string,
    slice: MarketSlice,
    input: { name: string; parentId?: string | null },
    ctx: Ctx,
  ): Promise<CategoryNode> {
    const name = checked(checkCategory(input.name));
    const scope = await this.#scope(principal, orgId, brandId, slice, ctx);
    return atUpstreamEdge(scope.log, "createCategory", () => createCategory(scope, { ...input, name }));
  }

  async updateCategory(
    principal: Principal,
    orgId: string,
    brandId: string,
    slice: MarketSlice,
    categoryId: string,
    input: { name?: string; parentId?: string | null },
    ctx: Ctx,
  ): Promise<CategoryNode> {
    const name = input.name === undefined ? undefined : checked(checkCategory(input.name));
    if (name === undefined && input.parentId === undefined) {
      throw new ServiceError("invalidRequest", { message: "name or parentId is required" });
    }
    const scope = await this.#scope(principal, orgId, brandId, slice, ctx);
    return atUpstreamEdge(scope.log, "updateCategory", () =>
      updateCategory(scope, categoryId, { name, parentId: input.parentId }),
    );
  }

  async deleteCategory(
    principal: Principal,
    orgId: string,
    brandId: string,
    slice: MarketSlice,
    categoryId: string,
    reassignTo: string | undefined,
    ctx: Ctx,
  ): Promise<void> {
    const scope = await this.#scope(principal, orgId, brandId, slice, ctx);
    await atUpstreamEdge(scope.log, "deleteCategory", () => deleteCategory(scope, categoryId, reassignTo));
  }

  /**
   * `POST …/serenity/prompts/bulk-delete`: per market, its ids deleted and the project published
   * once (through the guard), then surplus released; each market answers on its own. Who deleted
   * what is kept: a `prompt_deletions` row and a `promptsDeleted` log line (deletionRecord.ts).
   */
  async bulkDelete(
    principal: Principal,
    orgId: string,
    brandId: string,
    items: readonly (MarketSlice & { ids: string[] })[],
    ctx: Ctx,
  ): Promise<BulkDeleteOutcome[]> {
    await loadBrandContext(this.deps, principal, orgId, brandId);
    const outcomes: BulkDeleteOutcome[] = [];
    for (const [index, item] of items.entries()) {
      try {
        const scope = await this.#scope(principal, orgId, brandId, item, ctx);
        const ids = [...new Set(item.ids)];
        await atUpstreamEdge(scope.log, "bulkDeletePrompts", async () => {
          await scope.projects.deletePrompts(
            scope.ref.bearer,
            scope.ref.workspaceId,
            scope.ref.projectId,
            ids,
          );
          await publishMarket(scope);
        });
        await keepDeletion(
          { db: this.deps.db, logger: scope.log, now: this.deps.clock.now() },
          {
            orgId,
            brandId,
            marketId: scope.marketId,
            promptIds: ids,
            actor: principal.sub,
            requestId: ctx.requestId,
          },
        );
        try {
          await scope.guard.releaseSurplus(RELEASE_FLOOR, "release");
        } catch (error) {
          scope.log.warn({ err: error }, "release after a bulk delete failed");
        }
        outcomes.push({ index, deleted: ids.length });
      } catch (error) {
        const failure = upstreamFailure(error, this.deps.logger, "bulkDeletePrompts");
        if (!(failure instanceof ServiceError)) throw failure;
        outcomes.push({ index, code: failure.code, message: failure.message });
      }
    }
    return outcomes;
  }

  async #scope(
    principal: Principal,
    orgId: string,
    brandId: string,
    slice: MarketSlice,
    ctx: Ctx,
  ): Promise<MarketScope> {
    const context = await loadBrandContext(this.deps, principal, orgId, brandId);
    const row = await findMarket(this.deps.db, {
      brandId,
      geoTargetId: slice.geoTargetId,
      languageCode: slice.languageCode.toLowerCase(),
    });
    if (!row || row.status !== "ready" || !row.projectId) throw new ServiceError("notFound");
    const log = this.deps.logger.child({ requestId: ctx.requestId, orgId, brandId, marketId: row.id });
    return {
      marketId: row.id,
      ref: { bearer: principal.bearer, workspaceId: row.workspaceId, projectId: row.projectId },
      projects: this.deps.gateway.projects,
      guard: meteredWriteGuardFor(this.deps.meteredWrites, marketWriteTarget(row.workspaceId, context.org), {
        orgId,
        brandId,
        operation: { bearer: principal.bearer, requestId: ctx.requestId },
      }),
      known: { db: this.deps.db, clock: this.deps.clock, logger: log },
      log,
      brand: context.brand,
      actor: principal.sub,
    };
  }
}

function checked(check: { ok: true; value: string } | { ok: false; message: string }): string {
  if (!check.ok) throw new ServiceError("invalidRequest", { message: check.message });
  return check.value;
}
