import type { marketModels } from "../schema.ts";

export type KnownModelsRow = typeof marketModels.$inferSelect;
