import { and, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";

/**
 * Deletes the sealed bytes and stamps the invalidation time. Idempotent: an already invalidated
 * credential keeps its first invalidation time. Returns whether this call invalidated it.
 */
export async function invalidateCredential(
  db: DbExecutor,
  credentialId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .update(credentials)
    .set({ sealed: null, invalidatedAt: now })
    .where(and(eq(credentials.id, credentialId), isNull(credentials.invalidatedAt)))
    .returning({ id: credentials.id });
  return rows.length > 0;
}
