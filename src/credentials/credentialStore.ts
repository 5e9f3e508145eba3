import { randomUUID } from "node:crypto";

import { deleteCredential } from "../db/credentials/deleteCredential.ts";
import { findCredential } from "../db/credentials/findCredential.ts";
import { insertCredential } from "../db/credentials/insertCredential.ts";
import { invalidateCredential } from "../db/credentials/invalidateCredential.ts";
import type { Db, DbExecutor } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";
import { type CredentialKeyring, keyringOf, openWithKeyring, sealUnderCurrent } from "./keyring.ts";
import { credentialExpiry, credentialTtlMs } from "./tokenExpiry.ts";

/** The only audience we seal for: the upstream gateway. */
export const UPSTREAM_AUDIENCE = "upstream";

export type CredentialUnavailableReason = "missing" | "invalidated" | "expired" | "unreadable";

export type CredentialExchange =
  { status: "ok"; token: string } | { status: "NEEDS_REAUTH"; reason: CredentialUnavailableReason };

export interface CredentialStoreDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /**
   * The keyring (current key seals, previous keys unseal), a lone 32-byte key, or a promise of
   * either (loaded from the data dir on first use).
   */
  key: Buffer | CredentialKeyring | Promise<Buffer | CredentialKeyring>;
  env?: Record<string, string | undefined>;
}

/**
 * Sealed upstream credentials (spec/generation.md §6): a worker acts for the user long after the
 * request. The token is only ever held in memory; rows carry the sealed bytes, the owner, the
 * audience and the expiry. Every method takes an optional executor to join a caller's transaction.
 */
export class CredentialStore {
  readonly #deps: CredentialStoreDeps;

  constructor(deps: CredentialStoreDeps) {
    this.#deps = deps;
  }

  /** The keyring this store seals and unseals with. */
  async keyring(): Promise<CredentialKeyring> {
    return keyringOf(await this.#deps.key);
  }

  async seal(ownerSub: string, token: string, options: { db?: DbExecutor } = {}): Promise<string> {
    const ring = await this.keyring();
    const now = this.#deps.clock.now();
    const credentialId = randomUUID();
    const sealed = sealUnderCurrent(ring, { credentialId, ownerSub, audience: UPSTREAM_AUDIENCE }, token);
    await insertCredential(options.db ?? this.#deps.db, {
      id: credentialId,
      ownerSub,
      audience: UPSTREAM_AUDIENCE,
      sealed,
      expiresAt: credentialExpiry(token, now, credentialTtlMs(this.#deps.env)),
      now,
    });
    return credentialId;
  }

  /** The token, or NEEDS_REAUTH when it is missing, invalidated, expired or cannot be opened. */
  async exchange(credentialId: string, options: { db?: DbExecutor } = {}): Promise<CredentialExchange> {
    const row = await findCredential(options.db ?? this.#deps.db, credentialId);
    if (!row) return { status: "NEEDS_REAUTH", reason: "missing" };
    if (row.invalidatedAt || !row.sealed) return { status: "NEEDS_REAUTH", reason: "invalidated" };
    if (row.expiresAt.getTime() <= this.#deps.clock.now().getTime()) {
      return { status: "NEEDS_REAUTH", reason: "expired" };
    }
    if (row.audience !== UPSTREAM_AUDIENCE) return { status: "NEEDS_REAUTH", reason: "unreadable" };
    const opened = openWithKeyring(
      await this.keyring(),
      { credentialId: row.id, ownerSub: row.ownerSub, audience: row.audience },
      row.sealed,
    );
    if (opened === undefined) {
      // Tampered bytes, or a key no longer in the ring: the user must sign in again; operators
      // need to know.
      this.#deps.logger.warn({ credentialId }, "stored credential failed its integrity check");
      return { status: "NEEDS_REAUTH", reason: "unreadable" };
    }
    return { status: "ok", token: opened.token };
  }

  /** Deletes the sealed bytes (idempotent). */
  async invalidate(credentialId: string, options: { db?: DbExecutor } = {}): Promise<void> {
    await invalidateCredential(options.db ?? this.#deps.db, credentialId, this.#deps.clock.now());
  }

  /** Removes a credential that was never attached to a job (e.g. the loser of a reauth race). */
  async delete(credentialId: string, options: { db?: DbExecutor } = {}): Promise<void> {
    await deleteCredential(options.db ?? this.#deps.db, credentialId);
  }
}
