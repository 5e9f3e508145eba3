import { randomBytes } from "node:crypto";

import { CREDENTIAL_KEY_FILE, readOrCreateSecret } from "../auth/secrets.ts";
import type { Config } from "../config/env.ts";
import { CREDENTIAL_KEY_BYTES } from "./sealing.ts";

/**
 * The credential sealing key: `SERENITY_CREDENTIAL_KEY` (base64, 32 bytes), else a key generated
 * once into the data dir (mode 0600), shared by every process on that data dir. Scale-out with an
 * external database must set the variable, so that API and worker processes agree on one key.
 */
export async function resolveCredentialKey(
  config: Pick<Config, "credentialKey" | "dataDir">,
): Promise<Buffer> {
  const encoded =
    config.credentialKey ??
    (await readOrCreateSecret(config.dataDir, CREDENTIAL_KEY_FILE, CREDENTIAL_KEY_BYTES));
  const key = Buffer.from(encoded, "base64");
  if (key.length !== CREDENTIAL_KEY_BYTES)
    throw new Error("The credential key must be 32 bytes, base64-encoded.");
  return key;
}

/** A key that lives only in this process (tests and tools that never share credentials). */
export function ephemeralCredentialKey(): Buffer {
  return randomBytes(CREDENTIAL_KEY_BYTES);
}
