import { lt, or } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";

/** Deletes credential rows invalidated or expired before `before` (their jobs are long terminal). */
export async function purgeCredentials(db: DbExecutor, before: Date): Promise<number> {
  const rows = await db
    .delete(credentials)
    .where(or(lt(credentials.invalidatedAt, before), lt(credentials.expiresAt, before)))
    .returning({ id: credentials.id });
  return rows.length;
}
