import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { isUniqueViolation } from "../isUniqueViolation.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

/** The constraint that keeps a brand name unique per org, case-insensitively (docs/decisions/0022). */
const NAME_UNIQUE = "brands_org_name_key_unique";

/**
 * Inserts a `pending` brand; `"nameTaken"` when the org already has a brand of that name (compared
 * trimmed and case-folded by PostgreSQL's `lower`, the rule the migration applied to old rows).
 */
export async function insertBrand(
  db: DbExecutor,
  values: {
    orgId: string;
    name: string;
    domain: string | null;
    primaryUrl: string | null;
    aliases?: string[];
    now: Date;
  },
): Promise<BrandRow | "nameTaken"> {
  try {
    const [row] = await db
      .insert(brands)
      .values({
        orgId: values.orgId,
        name: values.name,
        nameKey: sql`lower(btrim(${values.name}))`,
        domain: values.domain,
        primaryUrl: values.primaryUrl,
        aliases: values.aliases ?? [],
        status: "pending",
        createdAt: values.now,
        updatedAt: values.now,
      })
      .returning();
    return row!;
  } catch (error) {
    if (isUniqueViolation(error, NAME_UNIQUE)) return "nameTaken";
    throw error;
  }
}
