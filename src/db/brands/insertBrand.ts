import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";
import type { BrandRow } from "./brandRow.ts";

export async function insertBrand(
  db: DbExecutor,
  values: {
    orgId: string;
    name: string;
    domain: string | null;
    primaryUrl: string | null;
    aliases?: string[];
    now: DatabaseTime;
  },
): Promise<BrandRow> {
  const [row] = await db
    .insert(brands)
    .values({
      orgId: values.orgId,
      name: values.name,
      domain: values.domain,
      primaryUrl: values.primaryUrl,
      aliases: values.aliases ?? [],
      status: "pending",
      createdAt: databaseNow(values.now),
      updatedAt: databaseNow(values.now),
    })
    .returning();
  return row!;
}
