import { and, asc, gt, isNotNull, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials } from "../schema.ts";

export interface SealedCredential {
  id: string;
  ownerSub: string;
  audience: string;
  sealed: Buffer;
}

/** One page of credentials that still hold sealed bytes, in id order after `afterId` (keyset). */
export async function listSealedCredentials(
  db: DbExecutor,
  page: { afterId?: string; limit: number },
): Promise<SealedCredential[]> {
  const rows = await db
    .select({
      id: credentials.id,
      ownerSub: credentials.ownerSub,
      audience: credentials.audience,
      sealed: credentials.sealed,
    })
    .from(credentials)
    .where(
      and(
        isNotNull(credentials.sealed),
        isNull(credentials.invalidatedAt),
        page.afterId ? gt(credentials.id, page.afterId) : undefined,
      ),
    )
    .orderBy(asc(credentials.id))
    .limit(page.limit);
  return rows.filter((row): row is SealedCredential => row.sealed !== null);
}
