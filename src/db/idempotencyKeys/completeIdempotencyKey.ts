import { and, eq } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { idempotencyKeys } from "../schema.ts";
import type { IdempotencyKeyScope } from "./keyScope.ts";

/** Stores the answer under the key, if `holder` still holds it. `false` = it did not. */
export async function completeIdempotencyKey(
  db: DbExecutor,
  input: IdempotencyKeyScope & { holder: string; status: number; body: unknown },
): Promise<boolean> {
  const rows = await db
    .update(idempotencyKeys)
    .set({ state: "done", lockedUntil: null, responseStatus: input.status, responseBody: input.body })
    .where(
      and(
        eq(idempotencyKeys.orgId, input.orgId),
        eq(idempotencyKeys.principal, input.principal),
        eq(idempotencyKeys.route, input.route),
        eq(idempotencyKeys.key, input.key),
        eq(idempotencyKeys.holder, input.holder),
        eq(idempotencyKeys.state, "inProgress"),
      ),
    )
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}
