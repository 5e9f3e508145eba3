import { and, eq, ne, sql } from "drizzle-orm";

import type { BrandIdentity } from "../../domain/brandIdentity.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { isUniqueViolation } from "../isUniqueViolation.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/** The constraint that keeps a live brand's name unique per org (docs/decisions/0022, 0041). */
const NAME_UNIQUE = "brands_org_name_key_unique";

/**
 * Writes a brand's identity in one guarded statement: only a brand of that org that is not
 * deleted, and only when its `identity_version` is still `expectedVersion` (a concurrent PATCH
 * that committed first makes this one a lost race: `undefined`, the caller reads again). The
 * version goes up by one, so every market follows. `"nameTaken"` when another live brand of the
 * org has the name (compared as insertBrand compares it). A brand whose key is NULL (a twin kept
 * by migration 0012) keeps it NULL unless the PATCH gives it a name of another key.
 */
export async function updateBrandIdentity(
  db: DbExecutor,
  input: {
    orgId: string;
    brandId: string;
    expectedVersion: number;
    identity: BrandIdentity;
    now: DatabaseTime;
  },
): Promise<BrandRow | "nameTaken" | undefined> {
  const { identity } = input;
  try {
    const [row] = await db
      .update(brands)
      .set({
        name: identity.name,
        // A legacy twin keeps its NULL key while its name's key stays the same (docs/decisions/0022
        // item 7): writing it would collide with the twin that holds the key.
        nameKey: sql`CASE WHEN ${brands.nameKey} IS NULL AND lower(btrim(${brands.name})) = lower(btrim(${identity.name})) THEN NULL ELSE lower(btrim(${identity.name})) END`,
        domain: identity.domain,
        primaryUrl: identity.primaryUrl,
        aliases: identity.aliases,
        competitors: identity.competitors,
        urls: identity.urls,
        // A new identity starts with none rejected: its propagation reports what the upstream refuses.
        rejectedAliases: [],
        identityVersion: sql`${brands.identityVersion} + 1`,
        updatedAt: databaseNow(input.now),
      })
      .where(
        and(
          eq(brands.id, input.brandId),
          eq(brands.orgId, input.orgId),
          ne(brands.status, "deleted"),
          eq(brands.identityVersion, input.expectedVersion),
        ),
      )
      .returning();
    return row;
  } catch (error) {
    if (isUniqueViolation(error, NAME_UNIQUE)) return "nameTaken";
    throw error;
  }
}
