import type { Prompt } from "../gateway/types.ts";

export interface PromptTagView {
  id: string;
  name: string;
  /** The taxonomy dimension (`origin`, `type`…) the tag is a value of; null for a tag outside it. */
  dimension: string | null;
}

/** A prompt as the API shows it; author and times from the upstream's prompt metadata (null when absent). */
export interface PromptView {
  id: string;
  text: string;
  tags: PromptTagView[];
  isDraft: boolean;
  createdAt: string | null;
  createdBy: string | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

export function promptViewOf(prompt: Prompt, dimensions: ReadonlyMap<string, string>): PromptView {
  return {
    id: prompt.id,
    text: prompt.text,
    tags: prompt.tags.map((tag) => ({
      id: tag.id,
      name: tag.name ?? "",
      dimension: dimensions.get(tag.id) ?? null,
    })),
    isDraft: prompt.isNew,
    createdAt: prompt.metadata?.createdAt ?? null,
    createdBy: prompt.metadata?.createdBy ?? null,
    updatedAt: prompt.metadata?.updatedAt ?? null,
    updatedBy: prompt.metadata?.updatedBy ?? null,
  };
}
