import { and, desc, eq, gt, isNotNull, isNull } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import { credentials, jobs } from "../schema.ts";

/**
 * The id of the most recent live sealed credential attached to a job of the org (sealed, not
 * invalidated, not expired at `now`, for `audience`): a token of a user who acted in that org.
 * Undefined when there is none.
 */
export async function findLatestOrgCredential(
  db: DbExecutor,
  input: { orgId: string; audience: string; now: Date },
): Promise<string | undefined> {
  const [row] = await db
    .select({ id: credentials.id })
    .from(credentials)
    .innerJoin(jobs, eq(jobs.credentialId, credentials.id))
    .where(
      and(
        eq(jobs.orgId, input.orgId),
        eq(credentials.audience, input.audience),
        isNotNull(credentials.sealed),
        isNull(credentials.invalidatedAt),
        gt(credentials.expiresAt, input.now),
      ),
    )
    .orderBy(desc(credentials.createdAt))
    .limit(1);
  return row?.id;
}
