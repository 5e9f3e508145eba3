import type { brands } from "../schema.ts";

export type BrandRow = typeof brands.$inferSelect;
