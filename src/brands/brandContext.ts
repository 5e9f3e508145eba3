import type { Principal } from "../auth/principal.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { findBrand } from "../db/brands/findBrand.ts";
import type { Db } from "../db/database.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { ServiceError } from "../domain/errors.ts";
import type { OrgService } from "../orgs/orgService.ts";

export interface BrandContext {
  org: OrgWithMetering;
  brand: BrandRow;
}

/** Tenancy for every brand-scoped operation: the org must be accessible and hold the brand (else 404). */
export async function loadBrandContext(
  deps: { db: Db; orgs: OrgService },
  principal: Principal,
  orgId: string,
  brandId: string,
): Promise<BrandContext> {
  const org = await deps.orgs.getAccessible(principal, orgId);
  const brand = await findBrand(deps.db, orgId, brandId);
  if (!brand || brand.status === "deleted") throw new ServiceError("notFound");
  return { org, brand };
}
