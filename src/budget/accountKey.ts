import { createHmac } from "node:crypto";

/**
 * The account of a bearer as the budget stores it: HMAC-SHA256 under a key derived from the
 * budget key — SERENITY_BUDGET_KEY, else the current credential sealing key (every process of a
 * deployment shares it, ADR 0019; pinned across credential-key rotations, ADR 0031) — so the
 * database never holds the token nor a hash anyone without the key could test guesses against.
 */
export function budgetHashKey(credentialKey: Buffer): Buffer {
  return createHmac("sha256", credentialKey).update("serenity/upstream-budget/v1").digest();
}

/**
 * The budget's account for a bearer: the upstream user it stands for, since Semrush limits per user
 * (issue 39, item 7; ADR 0037). A JWT names its user by issuer + `sub`: every token of that user —
 * a refresh, a caller's bearer, a job's sealed credential, the operator's token — is one account and
 * shares one budget. An opaque token has no readable subject: the token itself is the account.
 * Either way only the keyed hash is stored.
 */
export function accountKeyOf(hashKey: Buffer, bearer: string): string {
  return createHmac("sha256", hashKey).update(upstreamSubjectOf(bearer)).digest("base64url");
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/;
/** Longer than any token an identity provider issues: not parsed, treated as opaque. */
const MAX_JWT_LENGTH = 16_384;

/**
 * `jwt:["<iss>","<sub>"]` for a JWT with a string `sub`, else `opaque:<bearer>`. The claims are read, not
 * verified: every bearer the budget sees passed Serenity's authentication first (callers' tokens
 * at the API, sealed credentials when they were sealed, the operator's token is configuration), and
 * a forged one is refused upstream; the worst a wrong subject could do is share another account's
 * pacing, never its data.
 */
export function upstreamSubjectOf(bearer: string): string {
  const match = bearer.length <= MAX_JWT_LENGTH ? JWT_SHAPE.exec(bearer) : null;
  if (match) {
    try {
      const claims: unknown = JSON.parse(Buffer.from(match[1]!, "base64url").toString("utf8"));
      if (claims !== null && typeof claims === "object") {
        const { iss, sub } = claims as { iss?: unknown; sub?: unknown };
        if (typeof sub === "string" && sub !== "") {
          return `jwt:${JSON.stringify([typeof iss === "string" ? iss : "", sub])}`;
        }
      }
    } catch {
      // Not JSON: an opaque token that happens to have two dots.
    }
  }
  return `opaque:${bearer}`;
}
