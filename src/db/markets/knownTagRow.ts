import type { marketTags } from "../schema.ts";

export type KnownTagRow = typeof marketTags.$inferSelect;
