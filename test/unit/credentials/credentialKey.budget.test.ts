import { randomBytes } from "node:crypto";

import { describe, expect, it } from "vitest";

import { accountKeyOf, budgetHashKey } from "../../../src/budget/accountKey.ts";
import { loadConfig } from "../../../src/config/env.ts";
import { resolveBudgetKey, resolveCredentialKeyring } from "../../../src/credentials/credentialKey.ts";

const keyA = randomBytes(32).toString("base64");
const keyB = randomBytes(32).toString("base64");
const BEARER = "upstream-bearer-of-one-user";

/** The budget account a process on this environment files the bearer under, as runtime.ts wires it. */
async function budgetAccountOf(env: Record<string, string>): Promise<string> {
  const config = loadConfig({ SERENITY_DATA_DIR: "/nonexistent", ...env });
  const keyring = resolveCredentialKeyring(config);
  return accountKeyOf(budgetHashKey(await resolveBudgetKey(config, keyring)), BEARER);
}

describe("the budget key across a credential-key rotation", () => {
  it("keeps every bearer on one budget account through every phase of the rotation", async () => {
    const before = await budgetAccountOf({ SERENITY_CREDENTIAL_KEY: keyA });
    // Phase 1: the new key is known everywhere, the old one still seals.
    const known = await budgetAccountOf({
      SERENITY_CREDENTIAL_KEY: keyA,
      SERENITY_CREDENTIAL_KEY_PREVIOUS: keyB,
      SERENITY_BUDGET_KEY: keyA,
    });
    // Phase 2: the new key seals, the old one unseals until the reseal.
    const switched = await budgetAccountOf({
      SERENITY_CREDENTIAL_KEY: keyB,
      SERENITY_CREDENTIAL_KEY_PREVIOUS: keyA,
      SERENITY_BUDGET_KEY: keyA,
    });
    // Phase 3: the old key is gone from the ring; the budget key stays.
    const after = await budgetAccountOf({ SERENITY_CREDENTIAL_KEY: keyB, SERENITY_BUDGET_KEY: keyA });
    expect(new Set([before, known, switched, after])).toEqual(new Set([before]));
  });

  it("derives from the current credential key while no budget key is set (as before rotation existed)", async () => {
    const config = loadConfig({ SERENITY_DATA_DIR: "/nonexistent", SERENITY_CREDENTIAL_KEY: keyA });
    expect(await resolveBudgetKey(config, resolveCredentialKeyring(config))).toEqual(
      Buffer.from(keyA, "base64"),
    );
  });

  it("would split the budget if the budget key followed the credential key", async () => {
    expect(await budgetAccountOf({ SERENITY_CREDENTIAL_KEY: keyB })).not.toBe(
      await budgetAccountOf({ SERENITY_CREDENTIAL_KEY: keyA }),
    );
  });

  it("refuses previous credential keys without a pinned budget key, or without a current key", () => {
    expect(() =>
      loadConfig({ SERENITY_CREDENTIAL_KEY: keyB, SERENITY_CREDENTIAL_KEY_PREVIOUS: keyA }),
    ).toThrow(/SERENITY_BUDGET_KEY is required with SERENITY_CREDENTIAL_KEY_PREVIOUS/);
    expect(() => loadConfig({ SERENITY_CREDENTIAL_KEY_PREVIOUS: keyA, SERENITY_BUDGET_KEY: keyA })).toThrow(
      /SERENITY_CREDENTIAL_KEY is required with SERENITY_CREDENTIAL_KEY_PREVIOUS/,
    );
  });

  it("reads several previous keys, comma-separated, in order", async () => {
    const keyC = randomBytes(32).toString("base64");
    const config = loadConfig({
      SERENITY_DATA_DIR: "/nonexistent",
      SERENITY_CREDENTIAL_KEY: keyB,
      SERENITY_CREDENTIAL_KEY_PREVIOUS: ` ${keyA}, ${keyC} `,
      SERENITY_BUDGET_KEY: keyA,
    });
    const ring = await resolveCredentialKeyring(config);
    expect(ring.previous).toEqual([Buffer.from(keyA, "base64"), Buffer.from(keyC, "base64")]);
    expect(() =>
      loadConfig({
        SERENITY_CREDENTIAL_KEY: keyB,
        SERENITY_CREDENTIAL_KEY_PREVIOUS: `${keyA},short`,
        SERENITY_BUDGET_KEY: keyA,
      }),
    ).toThrow(/SERENITY_CREDENTIAL_KEY_PREVIOUS is invalid/);
  });
});
