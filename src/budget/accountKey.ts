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

export function accountKeyOf(hashKey: Buffer, bearer: string): string {
  return createHmac("sha256", hashKey).update(bearer).digest("base64url");
}
