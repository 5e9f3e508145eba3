import { and, eq } from "drizzle-orm";

import { provisioningErrorSentence } from "../../domain/provisioningAttempt.ts";
import type { DbExecutor } from "../database.ts";
import { databaseNow, type DatabaseTime } from "../databaseTime.ts";
import { brands } from "../schema.ts";

/**
 * A ready brand whose chained market work ended FAILED: the workspace stays
 * ready, and `provisioning.error` says what is missing, so a brand never reads ready-and-fine
 * without the market its request asked for. Guarded by the workspace the chained job worked on: a
 * brand deactivated or re-provisioned since is left alone. The next provisioning attempt or
 * promote clears the sentence. Answers whether the note was written.
 */
export async function noteMarketsNotCreated(
  db: DbExecutor,
  input: { brandId: string; workspaceId: string; now: DatabaseTime },
): Promise<boolean> {
  const rows = await db
    .update(brands)
    .set({
      provisioningError: provisioningErrorSentence("marketsNotCreated"),
      updatedAt: databaseNow(input.now),
    })
    .where(
      and(
        eq(brands.id, input.brandId),
        eq(brands.status, "active"),
        eq(brands.provisioningStatus, "ready"),
        eq(brands.subWorkspaceId, input.workspaceId),
      ),
    )
    .returning({ id: brands.id });
  return rows.length > 0;
}
