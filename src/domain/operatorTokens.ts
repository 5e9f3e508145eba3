/**
 * The operator's upstream accounts (SERENITY_UPSTREAM_TOKEN, one token or several separated by
 * commas; docs/decisions/0044). Background passes read an org with no live member credential, and
 * every parent's metering, with the operator's token; one account's background share carries
 * about 700 orgs when 5 % of them are active (measured: docs/capacity.md), so a larger fleet lists
 * several tokens — one per operator account — and each org is served by one of them, always the
 * same, picked from its id.
 */
export type OperatorBearer = string | readonly string[];

/**
 * The operator's token that serves `orgId`: the only one, or the one its id hashes to (FNV-1a, so
 * every process and every release picks the same). Undefined when none is configured.
 */
export function operatorBearerFor(bearer: OperatorBearer | undefined, orgId: string): string | undefined {
  if (bearer === undefined || typeof bearer === "string") return bearer;
  if (bearer.length <= 1) return bearer[0];
  return bearer[fnv1a(orgId) % bearer.length];
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
