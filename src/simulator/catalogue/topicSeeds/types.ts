/**
 * What a seed topic is about, as the catalogue means it. The wire contract carries no kind (the
 * consumer reads it from the topic's words), so it is not served: the industry catalogues name it
 * so that their tests can check the consumer reads each topic the way it was written.
 */
export type TopicSeedKind = "product" | "feature" | "concern" | "commerce" | "comparison";

/**
 * One seed topic: a base search volume and example prompts (`{brand}` is replaced by the brand
 * name). Live catalogues have gaps, and so do ours: a few topics have no example prompts, one has
 * an empty text and one has no text at all, so that consumers exercise their bounding.
 */
export interface TopicSeed {
  topic?: string;
  volume: number;
  prompts: string[];
  kind?: TopicSeedKind;
}
