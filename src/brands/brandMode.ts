import type { BrandRow } from "../db/brands/brandRow.ts";

export type BrandMode = "subworkspace" | "flat";

/**
 * A brand is in sub-workspace mode once it has a canonical sub-workspace or any provisioning
 * history; a brand with neither is flat and writes straight into the org's parent workspace.
 */
export function brandMode(brand: Pick<BrandRow, "subWorkspaceId" | "provisioningStatus">): BrandMode {
  return brand.subWorkspaceId !== null || brand.provisioningStatus !== null ? "subworkspace" : "flat";
}
