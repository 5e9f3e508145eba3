import type { orgs } from "../schema.ts";

export type OrgRow = typeof orgs.$inferSelect;
