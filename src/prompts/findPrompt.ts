import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import type { Prompt } from "../gateway/types.ts";
import type { MarketScope } from "./marketScope.ts";

/** A runaway stop: 200 pages of 200 (the project's texts, drafts included). */
const MAX_PAGES = 200;

/**
 * A prompt of the market's project by id, drafts included, with its tags and metadata; undefined
 * when the project has no such prompt (another market's id included). The upstream has no read by
 * id: its listing is paged through (one call per 200 texts before it).
 */
export async function findPrompt(scope: MarketScope, promptId: string): Promise<Prompt | undefined> {
  const { ref } = scope;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const answer = await scope.projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
      draft: true,
      page,
      limit: MAX_PROMPT_PAGE_SIZE,
    });
    const found = answer.items.find((prompt) => prompt.id === promptId);
    if (found) return found;
    if (answer.items.length < MAX_PROMPT_PAGE_SIZE || page * MAX_PROMPT_PAGE_SIZE >= answer.total)
      return undefined;
  }
  return undefined;
}
