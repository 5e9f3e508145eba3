import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { idempotencyKeys } from "../schema.ts";
import type { IdempotencyKeyScope } from "./keyScope.ts";

/** Frees a key `holder` still holds in progress (its answer is not to be replayed). */
export async function releaseIdempotencyKey(
  db: DbExecutor,
  input: IdempotencyKeyScope & { holder: string },
): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.orgId, input.orgId),
        eq(idempotencyKeys.principal, input.principal),
        eq(idempotencyKeys.route, input.route),
        eq(idempotencyKeys.key, input.key),
        eq(idempotencyKeys.holder, input.holder),
        eq(idempotencyKeys.state, "inProgress"),
      ),
    );
}
