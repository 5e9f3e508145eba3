import type { OrgMetering } from "../../domain/metering.ts";
import type { orgs } from "../schema.ts";

export type OrgRow = typeof orgs.$inferSelect;

/**
 * An org as its operations load it: the row and its parent's metering (spec/allocation.md §13),
 * read in the same statement from the parent's entry of the resources record (findOrgById), so a
 * guarded write learns whether to allocate without a statement of its own.
 */
export interface OrgWithMetering extends OrgRow {
  metering: OrgMetering;
}
