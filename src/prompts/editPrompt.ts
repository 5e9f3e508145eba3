import { promptType } from "../domain/brandedText.ts";
import { ServiceError } from "../domain/errors.ts";
import { tagKey, type TagPath } from "../domain/tagTaxonomy.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { Prompt, PromptTag } from "../gateway/types.ts";
import { readCategoryTree } from "../markets/categoryTree.ts";
import { findPrompt } from "./findPrompt.ts";
import { loadKnownFacts, rememberTags } from "./knownTags.ts";
import { type MarketScope, publishMarket } from "./marketScope.ts";
import { resolveTagIds } from "./tagTaxonomy.ts";

/** An edit in place: a new text (its `type` tag follows it) and/or a category (null clears it). */
export interface PromptEdit {
  text?: string;
  category?: string | null;
}

const TYPE_VALUES: TagPath[] = [
  { root: "type", value: "branded" },
  { root: "type", value: "non-branded" },
];

/**
 * `PATCH …/serenity/prompts/:promptId` (docs/decisions/0040): the prompt is found in the market
 * (404 otherwise), its text and metadata set in place by the v3 merge patch (the id kept; a text
 * another prompt holds → 409 `promptExists`), its tags replaced when the type or category changes,
 * and the project published once through the guard. A failed publish throws (the edit stays a
 * draft); the same request again changes nothing more and publishes.
 */
export async function editPrompt(
  scope: MarketScope,
  promptId: string,
  edit: PromptEdit,
  now: Date,
): Promise<Prompt> {
  const { ref, projects } = scope;
  const prompt = await findPrompt(scope, promptId);
  if (!prompt) throw new ServiceError("notFound");
  const text = edit.text ?? prompt.text;
  const textChanged = text !== prompt.text;

  const known = (
    await loadKnownFacts(scope.known.db, [{ id: scope.marketId, projectId: ref.projectId }])
  ).get(scope.marketId);
  const paths: TagPath[] = [
    ...(textChanged ? TYPE_VALUES : []),
    ...(edit.category ? [{ root: "category" as const, value: edit.category }] : []),
  ];
  const tree =
    edit.category === undefined
      ? undefined
      : await readCategoryTree(projects, ref, known?.tagIds.get("category"));
  const resolved = await resolveTagIds(projects, ref, paths, known?.tagIds);
  if (resolved.learned.size > 0) {
    await rememberTags(scope.known, { marketId: scope.marketId, ...ref }, resolved.learned);
  }

  const names = new Map(prompt.tags.map((tag) => [tag.id, tag]));
  let tagIds = prompt.tags.map((tag) => tag.id);
  const add = (path: TagPath) => {
    const id = resolved.ids.get(tagKey(path))!;
    names.set(id, { id, name: path.value, parentId: null });
    tagIds.push(id);
  };
  if (textChanged) {
    const typeIds = new Set(TYPE_VALUES.map((path) => resolved.ids.get(tagKey(path))));
    tagIds = tagIds.filter((id) => !typeIds.has(id));
    add({ root: "type", value: promptType(text, scope.brand) });
  }
  if (tree) {
    const categoryIds = new Set(tree.nodes.map((node) => node.id));
    tagIds = tagIds.filter((id) => !categoryIds.has(id));
    if (edit.category) add({ root: "category", value: edit.category });
  }
  const retagged =
    tagIds.length !== prompt.tags.length || tagIds.some((id, index) => prompt.tags[index]?.id !== id);

  const stamp = now.toISOString();
  try {
    await projects.patchPrompt(ref.bearer, ref.workspaceId, ref.projectId, promptId, {
      ...(textChanged ? { text } : {}),
      metadata: { updatedAt: stamp, updatedBy: scope.actor },
    });
  } catch (error) {
    if (isGatewayError(error, "conflict")) throw new ServiceError("promptExists", { cause: error });
    throw error;
  }
  if (retagged) {
    await projects.setPromptTags(ref.bearer, ref.workspaceId, ref.projectId, [
      { promptId, tagIds: [...new Set(tagIds)], replace: true },
    ]);
  }
  await publishMarket(scope);
  return {
    ...prompt,
    text,
    isNew: false,
    tags: [...new Set(tagIds)].map(
      (id): PromptTag => names.get(id) ?? { id, name: undefined, parentId: null },
    ),
    metadata: {
      ...prompt.metadata,
      createdAt: prompt.metadata?.createdAt,
      createdBy: prompt.metadata?.createdBy,
      updatedAt: stamp,
      updatedBy: scope.actor,
    },
  };
}
