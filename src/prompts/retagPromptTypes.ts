import { promptType } from "../domain/brandedText.ts";
import { tagKey, type TagPath } from "../domain/tagTaxonomy.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import type { PromptTagAssignment } from "../gateway/types.ts";
import type { KnownFactsDeps } from "../markets/knownModels.ts";
import type { ProjectRef } from "../markets/market.ts";
import { loadKnownFacts, rememberTags } from "./knownTags.ts";
import { resolveTagIds } from "./tagTaxonomy.ts";

const TYPE_VALUES: TagPath[] = [
  { root: "type", value: "branded" },
  { root: "type", value: "non-branded" },
];

/**
 * A market's prompts re-tagged after the brand's names changed (docs/decisions/0041): each prompt
 * that carries one of Serenity's `type` tags gets the one the classifier gives its text for the
 * brand's current names (src/domain/brandedText.ts). Prompts without a `type` tag (made by hand
 * upstream) are left alone. Tag writes are draft-layer: the caller publishes. Returns how many
 * prompts changed type; running it again changes none.
 */
export async function retagPromptTypes(
  deps: { projects: ProjectEngineClient; known: KnownFactsDeps },
  market: { marketId: string; ref: ProjectRef },
  brand: { name: string; aliases: readonly string[] },
): Promise<number> {
  const { projects } = deps;
  const { ref, marketId } = market;
  const known = (await loadKnownFacts(deps.known.db, [{ id: marketId, projectId: ref.projectId }])).get(
    marketId,
  );
  const resolved = await resolveTagIds(projects, ref, TYPE_VALUES, known?.tagIds);
  if (resolved.learned.size > 0) await rememberTags(deps.known, { marketId, ...ref }, resolved.learned);
  const idOf = (value: string) => resolved.ids.get(tagKey({ root: "type", value }))!;
  const typeIds = new Set([idOf("branded"), idOf("non-branded")]);

  const changes: PromptTagAssignment[] = [];
  for (let page = 1; ; page++) {
    const listed = await projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
      draft: true,
      page,
      limit: MAX_PROMPT_PAGE_SIZE,
    });
    for (const prompt of listed.items) {
      const tagIds = prompt.tags.map((tag) => tag.id);
      if (!tagIds.some((id) => typeIds.has(id))) continue;
      const wanted = idOf(promptType(prompt.text, brand));
      const others = tagIds.filter((id) => !typeIds.has(id));
      const current = tagIds.filter((id) => typeIds.has(id));
      if (current.length === 1 && current[0] === wanted) continue;
      changes.push({ promptId: prompt.id, tagIds: [...others, wanted], replace: true });
    }
    if (listed.items.length < MAX_PROMPT_PAGE_SIZE || page * MAX_PROMPT_PAGE_SIZE >= listed.total) break;
  }
  for (let start = 0; start < changes.length; start += MAX_PROMPT_PAGE_SIZE) {
    await projects.setPromptTags(
      ref.bearer,
      ref.workspaceId,
      ref.projectId,
      changes.slice(start, start + MAX_PROMPT_PAGE_SIZE),
    );
  }
  return changes.length;
}

/**
 * `retagPromptTypes` as the extra draft-layer step of a market's identity sync (`alsoWrite` of
 * markets/marketIdentity.ts): true when a prompt changed type.
 */
export function retagStep(
  deps: { projects: ProjectEngineClient; known: KnownFactsDeps },
  marketId: string,
  brand: { name: string; aliases: readonly string[] },
): (ref: { bearer: string; ws: string; pid: string }) => Promise<boolean> {
  return async (ref) => {
    const project = { bearer: ref.bearer, workspaceId: ref.ws, projectId: ref.pid };
    return (await retagPromptTypes(deps, { marketId, ref: project }, brand)) > 0;
  };
}
