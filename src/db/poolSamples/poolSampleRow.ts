import type { poolSamples } from "../schema.ts";

export type PoolSampleRow = typeof poolSamples.$inferSelect;
