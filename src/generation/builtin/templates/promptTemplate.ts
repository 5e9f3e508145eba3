import type { PromptCategory } from "../../wire.ts";

/**
 * A question template of the builtin generator: `{topic}` is a seed topic, `{brand}` the brand.
 * Most templates frame the topic ("When it comes to {topic}, …") so that any catalogue topic —
 * a product ("vitamin c serum") or a facet ("shipping and delivery") — reads naturally, without
 * articles or genders to agree with. Each is tagged with the intent it expresses.
 */
export type PromptTemplate = readonly [category: PromptCategory, text: string];
