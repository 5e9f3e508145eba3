import { rootKey } from "../domain/tagTaxonomy.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { ProjectRef } from "./market.ts";

/** How deep a market's categories may nest below the `category` root (spec/api.md §5). */
export const MAX_CATEGORY_DEPTH = 4;

/** One category of a market: a tag below the project's `category` root. */
export interface CategoryNode {
  id: string;
  name: string;
  /** null for a top-level category (a child of the root). */
  parentId: string | null;
  /** 1 for a top-level category. */
  depth: number;
  /** Prompts carrying this tag, drafts included (the upstream's count). */
  promptCount: number;
  childCount: number;
}

export interface CategoryTree {
  /** The `category` root's id; undefined when the project has none yet (no category ever made). */
  rootId: string | undefined;
  /** Breadth-first: parents before their children, each level in the upstream's order. */
  nodes: CategoryNode[];
}

/**
 * A market's category tree, read level by level from the upstream's tag tree (draft layer): the
 * roots (skipped when the root's id is known), then one listing per category that has children.
 * Deeper than MAX_CATEGORY_DEPTH is not read (Serenity never makes it).
 */
export async function readCategoryTree(
  projects: ProjectEngineClient,
  ref: ProjectRef,
  knownRootId?: string,
): Promise<CategoryTree> {
  const list = (parentId: string | undefined) =>
    projects.listTags(ref.bearer, ref.workspaceId, ref.projectId, { parentId, search: "" });
  let rootId = knownRootId;
  if (rootId === undefined) {
    const roots = await list(undefined);
    rootId = roots.find((tag) => tag.parentId === null && tag.name === rootKey("category"))?.id;
    if (rootId === undefined) return { rootId: undefined, nodes: [] };
  }
  const nodes: CategoryNode[] = [];
  let level: { id: string; depth: number }[] = [{ id: rootId, depth: 0 }];
  while (level.length > 0) {
    const next: { id: string; depth: number }[] = [];
    const children = await Promise.all(
      level.map(async (parent) => ({ parent, tags: await list(parent.id) })),
    );
    for (const { parent, tags } of children) {
      for (const tag of tags.filter((t) => t.parentId === parent.id)) {
        const node: CategoryNode = {
          id: tag.id,
          name: tag.name,
          parentId: parent.id === rootId ? null : parent.id,
          depth: parent.depth + 1,
          promptCount: tag.promptsCount,
          childCount: tag.childrenCount,
        };
        nodes.push(node);
        if (node.childCount > 0 && node.depth < MAX_CATEGORY_DEPTH)
          next.push({ id: node.id, depth: node.depth });
      }
    }
    level = next;
  }
  return { rootId, nodes };
}
