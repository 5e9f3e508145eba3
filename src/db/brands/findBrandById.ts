import { eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/**
 * A brand by id alone, for re-reads after a guarded write by code that already passed the
 * tenancy check (and for workers, which act on a stored brand id). Never for a caller's lookup:
 * use `findBrand`, which scopes by org.
 */
export async function findBrandById(db: DbExecutor, brandId: string): Promise<BrandRow | undefined> {
  const [row] = await db.select().from(brands).where(eq(brands.id, brandId)).limit(1);
  return row;
}
