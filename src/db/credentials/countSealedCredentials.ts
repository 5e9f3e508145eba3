import { and, count, isNotNull, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";

/** How many credentials still hold sealed bytes (a reseal's total). */
export async function countSealedCredentials(db: DbExecutor): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(credentials)
    .where(and(isNotNull(credentials.sealed), isNull(credentials.invalidatedAt)));
  return row?.n ?? 0;
}
