import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/** A brand by id, only within its org (tenancy is part of the lookup). */
export async function findBrand(
  db: DbExecutor,
  orgId: string,
  brandId: string,
): Promise<BrandRow | undefined> {
  const [row] = await db
    .select()
    .from(brands)
    .where(and(eq(brands.id, brandId), eq(brands.orgId, orgId)))
    .limit(1);
  return row;
}
