import { brandMode } from "./brandMode.ts";
import type { Brand } from "./brandService.ts";

/** The `Brand` shape of spec/api.md §3: an explicit allowlist of fields. */
export function brandView(brand: Brand) {
  return {
    id: brand.id,
    orgId: brand.orgId,
    name: brand.name,
    domain: brand.domain,
    primaryUrl: brand.primaryUrl,
    status: brand.status,
    mode: brandMode(brand),
    subWorkspaceId: brand.subWorkspaceId,
    aliases: brand.aliases,
    competitors: brand.competitors,
    urls: brand.urls,
    rejectedAliases: brand.rejectedAliases,
    provisioning: {
      status: brand.provisioningStatus,
      error: brand.provisioningError,
      jobId: brand.provisioningJobId,
    },
    createdAt: brand.createdAt.toISOString(),
    updatedAt: brand.updatedAt.toISOString(),
  };
}
