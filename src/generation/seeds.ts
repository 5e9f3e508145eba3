/**
 * Bounding the `brand-topics` catalogue into generation seeds (spec/generation.md §2 step 2). Pure.
 * The catalogue is read leniently (a topic may lack text, a volume may come as a string), because
 * a malformed entry must cost one topic, never the market's generation.
 */

/** A seed as the job's metadata carries it (mapped to the wire's `catalogue_seeds` later). */
export interface CatalogueSeed {
  topic: string;
  volume: number;
  examplePrompts: string[];
}

/** One catalogue entry as an upstream may send it. */
export interface CatalogueTopic {
  topic?: unknown;
  volume?: unknown;
  prompts?: unknown;
}

export const MAX_SEED_TOPICS = 50;
export const MAX_EXAMPLE_PROMPTS = 10;

/** A volume as a finite, non-negative number: `"8100"`, `"8,100"` and `8100` alike; else 0. */
export function coerceVolume(value: unknown): number {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() !== ""
        ? Number(value.trim().replace(/[\s,_]/g, ""))
        : Number.NaN;
  return Number.isFinite(number) && number > 0 ? number : 0;
}

function examplePromptsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const prompts: string[] = [];
  for (const entry of value) {
    if (typeof entry !== "string") continue;
    const text = entry.trim().replace(/\s+/g, " ");
    if (text === "" || seen.has(text)) continue;
    seen.add(text);
    prompts.push(text);
    if (prompts.length === MAX_EXAMPLE_PROMPTS) break;
  }
  return prompts;
}

/**
 * Drops topics with no text (and repeats of a topic, case-insensitively: the higher volume wins),
 * sorts by volume descending (ties keep the catalogue's order), keeps the top 50 topics and up to
 * 10 example prompts each.
 */
export function boundSeeds(topics: readonly CatalogueTopic[]): CatalogueSeed[] {
  const withText = topics.flatMap((entry, index) => {
    const text = typeof entry?.topic === "string" ? entry.topic.trim().replace(/\s+/g, " ") : "";
    if (text === "") return [];
    return [{ index, topic: text, volume: coerceVolume(entry.volume), prompts: entry.prompts }];
  });
  withText.sort((a, b) => b.volume - a.volume || a.index - b.index);
  const seen = new Set<string>();
  const seeds: CatalogueSeed[] = [];
  for (const entry of withText) {
    const key = entry.topic.toLocaleLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    seeds.push({ topic: entry.topic, volume: entry.volume, examplePrompts: examplePromptsOf(entry.prompts) });
    if (seeds.length === MAX_SEED_TOPICS) break;
  }
  return seeds;
}
