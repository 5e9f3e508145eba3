import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

/**
 * Secrets generated into the data dir on first start (mode 0600), used when the environment does
 * not provide them. Creation is exclusive, so two processes starting at once agree on one value.
 */
export async function readOrCreateSecret(dataDir: string, name: string, bytes = 32): Promise<string> {
  const file = path.join(dataDir, name);
  await fs.mkdir(dataDir, { recursive: true });
  try {
    await fs.writeFile(file, randomBytes(bytes).toString("base64"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return (await fs.readFile(file, "utf8")).trim();
}

export const AUTH_SECRET_FILE = "auth-secret";
export const CREDENTIAL_KEY_FILE = "credential-key";
