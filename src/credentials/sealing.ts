import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM sealing of an upstream token. Layout: iv (12) ‖ tag (16) ‖ ciphertext. The
 * additional authenticated data binds the sealed bytes to their row (id, owner, audience), so
 * bytes copied onto another row, or a changed owner, fail to open exactly like tampered bytes.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

export const CREDENTIAL_KEY_BYTES = 32;

export interface SealBinding {
  credentialId: string;
  ownerSub: string;
  audience: string;
}

function aad(binding: SealBinding): Buffer {
  return Buffer.from(JSON.stringify([binding.credentialId, binding.ownerSub, binding.audience]), "utf8");
}

function assertKey(key: Buffer): void {
  if (key.length !== CREDENTIAL_KEY_BYTES) throw new Error("The credential key must be 32 bytes.");
}

export function seal(key: Buffer, binding: SealBinding, token: string): Buffer {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aad(binding));
  const ciphertext = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** The token, or `undefined` when the bytes were tampered with, re-bound or sealed with another key. */
export function open(key: Buffer, binding: SealBinding, sealed: Buffer): string | undefined {
  assertKey(key);
  if (sealed.length < IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(aad(binding));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return undefined;
  }
}
