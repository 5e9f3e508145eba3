import { randomBytes } from "node:crypto";

import { CREDENTIAL_KEY_FILE, readOrCreateSecret } from "../auth/secrets.ts";
import type { Config } from "../config/env.ts";
import type { CredentialKeyring } from "./keyring.ts";
import { CREDENTIAL_KEY_BYTES } from "./sealing.ts";

function decodeKey(encoded: string): Buffer {
  const key = Buffer.from(encoded, "base64");
  if (key.length !== CREDENTIAL_KEY_BYTES)
    throw new Error("The credential key must be 32 bytes, base64-encoded.");
  return key;
}

/**
 * The current credential sealing key: `SERENITY_CREDENTIAL_KEY` (base64, 32 bytes), else a key
 * generated once into the data dir (mode 0600), shared by every process on that data dir.
 * Scale-out with an external database must set the variable, so that API and worker processes
 * agree on one key.
 */
export async function resolveCredentialKey(
  config: Pick<Config, "credentialKey" | "dataDir">,
): Promise<Buffer> {
  const encoded =
    config.credentialKey ??
    (await readOrCreateSecret(config.dataDir, CREDENTIAL_KEY_FILE, CREDENTIAL_KEY_BYTES));
  return decodeKey(encoded);
}

/**
 * The keyring (docs/decisions/0031): the current key above, and the keys of
 * `SERENITY_CREDENTIAL_KEY_PREVIOUS` that still unseal what was sealed before a rotation.
 */
export async function resolveCredentialKeyring(
  config: Pick<Config, "credentialKey" | "previousCredentialKeys" | "dataDir">,
): Promise<CredentialKeyring> {
  return {
    current: await resolveCredentialKey(config),
    previous: config.previousCredentialKeys.map(decodeKey),
  };
}

/**
 * What the upstream budget's account hash derives from: `SERENITY_BUDGET_KEY` when set, else the
 * current credential key. A rotation of the credential key pins the budget key to the old value
 * first (the configuration refuses previous keys without it), so every process of every phase of
 * the rotation hashes a bearer to one account and the budget is never split per key.
 */
export async function resolveBudgetKey(
  config: Pick<Config, "budgetKey">,
  keyring: CredentialKeyring | Promise<CredentialKeyring>,
): Promise<Buffer> {
  return config.budgetKey ? decodeKey(config.budgetKey) : (await keyring).current;
}

/** A key that lives only in this process (tests and tools that never share credentials). */
export function ephemeralCredentialKey(): Buffer {
  return randomBytes(CREDENTIAL_KEY_BYTES);
}
