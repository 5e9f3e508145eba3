import { sql } from "drizzle-orm";

import type { DbExecutor } from "../database.ts";
import type { IdempotencyKeyScope } from "./keyScope.ts";

/**
 * Takes the key for `holder`, `inProgress` until `leaseMs` from now: a new key, a key past its
 * lifetime, or one whose holder's lease ran out with the same fingerprint (the holder died; an
 * expired lease under another fingerprint is still a mismatch). Every time is PostgreSQL's clock,
 * so processes never compare their own clocks. `true` = taken; `false` = someone else's, read it.
 */
export async function claimIdempotencyKey(
  db: DbExecutor,
  input: IdempotencyKeyScope & { fingerprint: string; holder: string; leaseMs: number; ttlMs: number },
): Promise<boolean> {
  const result = await db.execute<{ holder: string }>(sql`
    insert into idempotency_keys
      (org_id, principal, route, key, fingerprint, state, holder, locked_until, created_at, expires_at)
    values (
      ${input.orgId}, ${input.principal}, ${input.route}, ${input.key}, ${input.fingerprint},
      'inProgress', ${input.holder},
      clock_timestamp() + ${input.leaseMs} * interval '1 millisecond',
      clock_timestamp(),
      clock_timestamp() + ${input.ttlMs} * interval '1 millisecond'
    )
    on conflict (org_id, principal, route, key) do update set
      fingerprint = excluded.fingerprint,
      state = 'inProgress',
      holder = excluded.holder,
      locked_until = excluded.locked_until,
      response_status = null,
      response_body = null,
      created_at = case when idempotency_keys.expires_at <= clock_timestamp()
        then excluded.created_at else idempotency_keys.created_at end,
      expires_at = case when idempotency_keys.expires_at <= clock_timestamp()
        then excluded.expires_at else idempotency_keys.expires_at end
    where idempotency_keys.expires_at <= clock_timestamp()
      or (idempotency_keys.state = 'inProgress'
        and idempotency_keys.locked_until <= clock_timestamp()
        and idempotency_keys.fingerprint = excluded.fingerprint)
    returning holder`);
  return result.rows[0]?.holder === input.holder;
}
