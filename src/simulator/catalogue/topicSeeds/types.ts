/**
 * One seed topic: a base search volume and example prompts (`{brand}` is replaced by the brand
 * name). Live catalogues have gaps, and so do ours: a few topics have no example prompts, one has
 * an empty text and one has no text at all, so that consumers exercise their bounding.
 */
export interface TopicSeed {
  topic?: string;
  volume: number;
  prompts: string[];
}
