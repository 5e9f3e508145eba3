import { asc, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

export async function listBrands(db: DbExecutor, orgId: string): Promise<BrandRow[]> {
  return db
    .select()
    .from(brands)
    .where(eq(brands.orgId, orgId))
    .orderBy(asc(brands.createdAt), asc(brands.id));
}
