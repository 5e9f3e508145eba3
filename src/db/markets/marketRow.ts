import type { markets } from "../schema.ts";

export type MarketRow = typeof markets.$inferSelect;

/** A brand's market slice: country × language. */
export interface MarketSlice {
  brandId: string;
  geoTargetId: number;
  languageCode: string;
}
