import type { PromptCategory } from "../../wire.ts";
import type { TopicKind } from "../topicKinds.ts";

/**
 * A question template of the builtin generator: `{topic}` is a seed topic, `{brand}` the brand.
 * The topic slot always follows a framing that takes a bare noun phrase in its language ("when it
 * comes to …", « en matière de … », „beim Thema …“, "en materia de …", "in fatto di …", "em termos
 * de …", "op het gebied van …"), so no article, gender, number or case has to agree with a topic
 * the catalogue gives as a bare phrase; elision at the slot's edge is the grammar module's job.
 * `kinds` lists the topic kinds the question reads well with; comparison topics ("alternatives",
 * "reviews") get questions that carry the comparison in their wording instead of the slot.
 */
export interface PromptTemplate {
  category: PromptCategory;
  kinds: readonly TopicKind[];
  text: string;
}

/** `[category, kinds, text]` rows, the compact form the language files are written in. */
export type TemplateRow = readonly [category: PromptCategory, kinds: readonly TopicKind[], text: string];

export function templatesFrom(rows: readonly TemplateRow[]): readonly PromptTemplate[] {
  return rows.map(([category, kinds, text]) => ({ category, kinds, text }));
}

/** Shorthands for the kinds lists of the language files. */
export const ANY_SUBJECT: readonly TopicKind[] = ["product", "feature", "concern", "commerce"];
export const GOODS: readonly TopicKind[] = ["product", "feature"];
export const GOODS_AND_CONCERNS: readonly TopicKind[] = ["product", "feature", "concern"];
export const FACETS: readonly TopicKind[] = ["feature", "concern", "commerce"];
export const PRODUCT: readonly TopicKind[] = ["product"];
export const CONCERN: readonly TopicKind[] = ["concern"];
export const COMMERCE: readonly TopicKind[] = ["commerce"];
export const COMMERCE_AND_CONCERNS: readonly TopicKind[] = ["commerce", "concern"];
export const COMPARISON: readonly TopicKind[] = ["comparison"];
