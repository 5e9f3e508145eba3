import type { marketTags } from "../schema.ts";

export type KnownTagRow = typeof marketTags.$inferSelect;

/** The rows that remember `tags` (key → id) of a market's project, all known at `knownAt`. */
export function knownTagRows(values: {
  marketId: string;
  projectId: string;
  tags: ReadonlyMap<string, string>;
  knownAt: Date;
}): (typeof marketTags.$inferInsert)[] {
  return [...values.tags].map(([tagKey, tagId]) => ({
    marketId: values.marketId,
    projectId: values.projectId,
    tagKey,
    tagId,
    knownAt: values.knownAt,
  }));
}
