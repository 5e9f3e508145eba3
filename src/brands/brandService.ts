import type { Principal } from "../auth/principal.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { findBrand } from "../db/brands/findBrand.ts";
import { insertBrand } from "../db/brands/insertBrand.ts";
import { listBrands } from "../db/brands/listBrands.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import type { OrgService } from "../orgs/orgService.ts";

export type Brand = BrandRow;

export interface NewBrandInput {
  name: string;
  domain?: string | null;
  primaryUrl?: string | null;
}

export interface BrandServiceDeps {
  db: Db;
  clock: Clock;
  orgs: OrgService;
}

/**
 * Brands of an org as records: create a flat one, list, read. Every lookup goes through tenancy
 * first. Giving a brand its sub-workspace (create with a market, activate, deactivate) is
 * the brand lifecycle's (src/brandLifecycle/brandLifecycleService.ts).
 */
export class BrandService {
  constructor(private readonly deps: BrandServiceDeps) {}

  /** A brand without `semrushMarket`: created `pending` and flat (spec/api.md §3). */
  async createFlat(principal: Principal, orgId: string, input: NewBrandInput): Promise<Brand> {
    await this.deps.orgs.getAccessible(principal, orgId);
    return insertNewBrand(this.deps, orgId, input);
  }

  async list(principal: Principal, orgId: string): Promise<Brand[]> {
    await this.deps.orgs.getAccessible(principal, orgId);
    // A deleted brand is gone for its callers (spec/api.md §5); its row stays for the reconciler.
    return (await listBrands(this.deps.db, orgId)).filter((brand) => brand.status !== "deleted");
  }

  async get(principal: Principal, orgId: string, brandId: string): Promise<Brand> {
    await this.deps.orgs.getAccessible(principal, orgId);
    const brand = await findBrand(this.deps.db, orgId, brandId);
    if (!brand || brand.status === "deleted") throw new ServiceError("notFound");
    return brand;
  }
}

/**
 * Inserts a brand (`pending`, flat until provisioned) for a caller that already checked tenancy.
 * A name the org already has (case-insensitively) is `brandExists`: a second brand of one name
 * would get a second sub-workspace of one title, which adoption and the reconciler could not tell
 * apart (docs/decisions/0022).
 */
export async function insertNewBrand(
  deps: { db: Db; clock: Clock },
  orgId: string,
  input: NewBrandInput,
): Promise<BrandRow> {
  const inserted = await insertBrand(deps.db, {
    orgId,
    name: input.name,
    domain: input.domain ?? null,
    primaryUrl: input.primaryUrl ?? null,
    now: deps.clock.databaseTime?.(),
  });
  if (inserted === "nameTaken") throw new ServiceError("brandExists");
  return inserted;
}
