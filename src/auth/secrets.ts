import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

import { ensureDataDirectory } from "../config/dataDirectory.ts";

/**
 * Secrets generated into the data dir on first start (mode 0600), used when the environment does
 * not provide them. The value is written to a private temporary file and then linked into place,
 * which fails if another process got there first: a reader never sees a half-written (empty) file,
 * and two processes starting at once agree on one value.
 */
export async function readOrCreateSecret(dataDir: string, name: string, bytes = 32): Promise<string> {
  const file = path.join(dataDir, name);
  await ensureDataDirectory(dataDir);
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await fs.writeFile(temporary, randomBytes(bytes).toString("base64"), { mode: 0o600, flag: "wx" });
  try {
    await fs.link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
  const value = (await fs.readFile(file, "utf8")).trim();
  if (value.length === 0)
    throw new Error(`The secret file ${file} is empty; remove it to generate a new one`);
  return value;
}

export const AUTH_SECRET_FILE = "auth-secret";
export const CREDENTIAL_KEY_FILE = "credential-key";
