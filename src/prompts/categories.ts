import { forgetKnownTagIds } from "../db/markets/forgetKnownTagIds.ts";
import { ServiceError } from "../domain/errors.ts";
import { rootKey, tagKey } from "../domain/tagTaxonomy.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import {
  type CategoryNode,
  type CategoryTree,
  MAX_CATEGORY_DEPTH,
  readCategoryTree,
} from "../markets/categoryTree.ts";
import { loadKnownFacts, rememberTags } from "./knownTags.ts";
import { type MarketScope, publishMarket } from "./marketScope.ts";
import { resolveTagIds } from "./tagTaxonomy.ts";

/**
 * A market's categories (spec/api.md §5): the project's tag tree below the `category` root. Names
 * are unique among siblings (the upstream refuses a duplicate with a bare 500, so Serenity checks
 * first: 409 `categoryExists`), depth is bounded by MAX_CATEGORY_DEPTH, a move under the category
 * itself or its own subtree is a 400, and every change is published once through the guard.
 */

async function tree(scope: MarketScope): Promise<CategoryTree> {
  const known = (
    await loadKnownFacts(scope.known.db, [{ id: scope.marketId, projectId: scope.ref.projectId }])
  ).get(scope.marketId);
  try {
    return await readCategoryTree(scope.projects, scope.ref, known?.tagIds.get(rootKey("category")));
  } catch (error) {
    // A remembered root deleted upstream: read from the roots.
    if (known?.tagIds.has(rootKey("category"))) return readCategoryTree(scope.projects, scope.ref);
    throw error;
  }
}

export async function listCategories(scope: MarketScope): Promise<CategoryNode[]> {
  return (await tree(scope)).nodes;
}

function nodeOf(categories: CategoryTree, id: string): CategoryNode {
  const node = categories.nodes.find((candidate) => candidate.id === id);
  if (!node) throw new ServiceError("notFound");
  return node;
}

function parentOf(categories: CategoryTree, parentId: string | null | undefined): CategoryNode | null {
  if (parentId === null || parentId === undefined) return null;
  const parent = categories.nodes.find((candidate) => candidate.id === parentId);
  if (!parent)
    throw new ServiceError("invalidRequest", { message: "parentId is not a category of this market" });
  return parent;
}

function refuseSibling(categories: CategoryTree, parentId: string | null, name: string, self?: string): void {
  const clash = categories.nodes.some(
    (node) => node.parentId === parentId && node.name === name && node.id !== self,
  );
  if (clash) throw new ServiceError("categoryExists");
}

/** The ids of `id` and every category below it. */
function subtree(categories: CategoryTree, id: string): Set<string> {
  const found = new Set([id]);
  for (const node of categories.nodes)
    if (node.parentId !== null && found.has(node.parentId)) found.add(node.id);
  return found;
}

/** Levels below `id` (0 for a leaf). */
function height(categories: CategoryTree, id: string): number {
  const below = subtree(categories, id);
  const depth = nodeOf(categories, id).depth;
  return Math.max(...categories.nodes.filter((node) => below.has(node.id)).map((node) => node.depth)) - depth;
}

export async function createCategory(
  scope: MarketScope,
  input: { name: string; parentId?: string | null },
): Promise<CategoryNode> {
  const { ref, projects } = scope;
  const categories = await tree(scope);
  const parent = parentOf(categories, input.parentId);
  if ((parent?.depth ?? 0) + 1 > MAX_CATEGORY_DEPTH) {
    throw new ServiceError("invalidRequest", {
      message: `categories nest at most ${MAX_CATEGORY_DEPTH} deep`,
    });
  }
  refuseSibling(categories, parent?.id ?? null, input.name);
  let id: string;
  if (parent === null) {
    // A top-level category is what a prompt's `category` names: resolved (and remembered) as one.
    const path = { root: "category" as const, value: input.name };
    const known =
      categories.rootId === undefined ? new Map() : new Map([[rootKey("category"), categories.rootId]]);
    const resolved = await resolveTagIds(projects, ref, [path], known);
    await rememberTags(scope.known, { marketId: scope.marketId, ...ref }, resolved.learned);
    id = resolved.ids.get(tagKey(path))!;
  } else {
    const [made] = await projects.createTags(ref.bearer, ref.workspaceId, ref.projectId, {
      names: [input.name],
      parentId: parent.id,
    });
    if (!made)
      throw new ServiceError("serenityUpstreamError", { details: { reason: "tag create answered no tag" } });
    id = made.id;
  }
  await publishMarket(scope);
  return {
    id,
    name: input.name,
    parentId: parent?.id ?? null,
    depth: (parent?.depth ?? 0) + 1,
    promptCount: 0,
    childCount: 0,
  };
}

export async function updateCategory(
  scope: MarketScope,
  id: string,
  input: { name?: string; parentId?: string | null },
): Promise<CategoryNode> {
  const { ref, projects } = scope;
  const categories = await tree(scope);
  const node = nodeOf(categories, id);
  const name = input.name ?? node.name;
  const parentId = input.parentId === undefined ? node.parentId : input.parentId;
  if (parentId !== null && subtree(categories, id).has(parentId)) {
    throw new ServiceError("invalidRequest", {
      message: "a category cannot move under itself or its subcategories",
    });
  }
  const parent = parentOf(categories, parentId);
  const depth = (parent?.depth ?? 0) + 1;
  if (depth + height(categories, id) > MAX_CATEGORY_DEPTH) {
    throw new ServiceError("invalidRequest", {
      message: `categories nest at most ${MAX_CATEGORY_DEPTH} deep`,
    });
  }
  refuseSibling(categories, parentId, name, id);
  if (name !== node.name || parentId !== node.parentId) {
    await projects.patchTag(ref.bearer, ref.workspaceId, ref.projectId, id, {
      name,
      parentId: parentId ?? categories.rootId!,
    });
    // Remembered as `category=<old name>` when it was top-level: no longer true.
    await forgetKnownTagIds(scope.known.db, scope.marketId, [id]);
    await publishMarket(scope);
  }
  return { ...node, name, parentId, depth };
}

/** Ids of the market's prompts (drafts included) filed under `categoryId`. */
async function promptsUnder(scope: MarketScope, categoryId: string): Promise<string[]> {
  const { ref } = scope;
  const ids: string[] = [];
  for (let page = 1; page <= 200; page++) {
    const answer = await scope.projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
      draft: true,
      tagIds: [categoryId],
      page,
      limit: MAX_PROMPT_PAGE_SIZE,
    });
    ids.push(...answer.items.map((prompt) => prompt.id));
    if (answer.items.length < MAX_PROMPT_PAGE_SIZE || page * MAX_PROMPT_PAGE_SIZE >= answer.total) break;
  }
  return ids;
}

/**
 * Deletes a category without subcategories. Its prompts move to `reassignTo` first (added to them;
 * the deleted tag leaves them with the delete); without `reassignTo`, a category in use is refused
 * (409 `categoryInUse`) and nothing changes.
 */
export async function deleteCategory(scope: MarketScope, id: string, reassignTo?: string): Promise<void> {
  const { ref, projects } = scope;
  const categories = await tree(scope);
  const node = nodeOf(categories, id);
  if (node.childCount > 0 || categories.nodes.some((other) => other.parentId === id)) {
    throw new ServiceError("categoryInUse", {
      message: "The category has subcategories: delete or move them first.",
    });
  }
  if (
    reassignTo !== undefined &&
    (reassignTo === id || !categories.nodes.some((other) => other.id === reassignTo))
  ) {
    throw new ServiceError("invalidRequest", {
      message: "reassignTo is not another category of this market",
    });
  }
  const prompts = await promptsUnder(scope, id);
  if (prompts.length > 0 && reassignTo === undefined) throw new ServiceError("categoryInUse");
  if (prompts.length > 0) {
    await projects.setPromptTags(
      ref.bearer,
      ref.workspaceId,
      ref.projectId,
      prompts.map((promptId) => ({ promptId, tagIds: [reassignTo!], replace: false })),
    );
  }
  await projects.deleteTags(ref.bearer, ref.workspaceId, ref.projectId, { ids: [id] });
  await forgetKnownTagIds(scope.known.db, scope.marketId, [id]);
  await publishMarket(scope);
}
