/** One seed topic: a base search volume and example prompts (`{brand}` is replaced by the brand name). */
export interface TopicSeed {
  topic: string;
  volume: number;
  prompts: string[];
}
