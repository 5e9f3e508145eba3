import { and, eq, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";

/**
 * Swaps a credential's sealed bytes only if they are still the ones read (compare and swap): a
 * concurrent reseal, or an invalidation by a worker, wins and this call changes nothing. Returns
 * whether it replaced them.
 */
export async function replaceSealedCredential(
  db: DbExecutor,
  values: { id: string; from: Buffer; to: Buffer },
): Promise<boolean> {
  const rows = await db
    .update(credentials)
    .set({ sealed: values.to })
    .where(
      and(
        eq(credentials.id, values.id),
        eq(credentials.sealed, values.from),
        isNull(credentials.invalidatedAt),
      ),
    )
    .returning({ id: credentials.id });
  return rows.length > 0;
}
