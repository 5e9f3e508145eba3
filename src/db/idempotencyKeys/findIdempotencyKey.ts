import { and, eq, gt, sql } from "drizzle-orm";

import type { StoredKey } from "../../domain/idempotency.ts";
import type { DbExecutor } from "../database.ts";
import { idempotencyKeys } from "../schema.ts";
import type { IdempotencyKeyScope } from "./keyScope.ts";

/** The key's row while it counts (before `expires_at`, PostgreSQL's clock), or undefined. */
export async function findIdempotencyKey(
  db: DbExecutor,
  scope: IdempotencyKeyScope,
): Promise<StoredKey | undefined> {
  const [row] = await db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      state: idempotencyKeys.state,
      responseStatus: idempotencyKeys.responseStatus,
      responseBody: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.orgId, scope.orgId),
        eq(idempotencyKeys.principal, scope.principal),
        eq(idempotencyKeys.route, scope.route),
        eq(idempotencyKeys.key, scope.key),
        gt(idempotencyKeys.expiresAt, sql`clock_timestamp()`),
      ),
    );
  return row;
}
