import { open, seal, type SealBinding } from "./sealing.ts";

/**
 * The credential keyring (docs/decisions/0031): the current key seals, and every key — the current
 * one first, then the previous ones in the order given — unseals. A sealed blob carries no key id:
 * AES-GCM's tag already refuses a wrong key, so opening tries the keys in turn. Pure.
 */
export interface CredentialKeyring {
  current: Buffer;
  previous: readonly Buffer[];
}

/** What opening found: the token, and whether it was sealed under the current key. */
export interface OpenedCredential {
  token: string;
  current: boolean;
}

/** A lone key is a keyring without previous keys (tests, tools). */
export function keyringOf(key: Buffer | CredentialKeyring): CredentialKeyring {
  return Buffer.isBuffer(key) ? { current: key, previous: [] } : key;
}

export function sealUnderCurrent(ring: CredentialKeyring, binding: SealBinding, token: string): Buffer {
  return seal(ring.current, binding, token);
}

/** The token under whichever key of the ring opens the bytes, or `undefined` when none does. */
export function openWithKeyring(
  ring: CredentialKeyring,
  binding: SealBinding,
  sealed: Buffer,
): OpenedCredential | undefined {
  const underCurrent = open(ring.current, binding, sealed);
  if (underCurrent !== undefined) return { token: underCurrent, current: true };
  for (const key of ring.previous) {
    const token = open(key, binding, sealed);
    if (token !== undefined) return { token, current: false };
  }
  return undefined;
}
