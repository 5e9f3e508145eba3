import { randomUUID } from "node:crypto";

import type { Db } from "../db/database.ts";
import { claimIdempotencyKey } from "../db/idempotencyKeys/claimIdempotencyKey.ts";
import { completeIdempotencyKey } from "../db/idempotencyKeys/completeIdempotencyKey.ts";
import { findIdempotencyKey } from "../db/idempotencyKeys/findIdempotencyKey.ts";
import type { IdempotencyKeyScope } from "../db/idempotencyKeys/keyScope.ts";
import { releaseIdempotencyKey } from "../db/idempotencyKeys/releaseIdempotencyKey.ts";
import { type Clock, monotonicMsOf } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import {
  IDEMPOTENCY_IN_PROGRESS_LEASE_MS,
  IDEMPOTENCY_KEY_TTL_MS,
  isFinalAnswer,
  repeatVerdict,
} from "../domain/idempotency.ts";
import type { Logger } from "../observability/logger.ts";

export type { IdempotencyKeyScope };

/** A request that holds its key: answer it with `finish`, or `abandon` it. */
export interface IdempotencyTicket {
  scope: IdempotencyKeyScope;
  holder: string;
}

export type IdempotentStart =
  { kind: "run"; ticket: IdempotencyTicket } | { kind: "replay"; status: number; body: unknown };

export interface IdempotencyServiceDeps {
  db: Db;
  logger: Logger;
  /** A repeat's wait and its polls are measured and slept on it (a test drives them by hand). */
  clock: Clock;
  /** How often a repeat looks again at a key that is in progress (default 100 ms). */
  pollMs?: number;
}

/**
 * Idempotency keys across every process (docs/decisions/0022), stored in PostgreSQL: the first
 * request under a key takes it and runs; a repeat with the same fingerprint gets the stored answer,
 * or waits (polling the row, holding no connection) while the first is still running; another
 * fingerprint under the same key is `idempotencyKeyReused`. A wait that outlasts `waitMs` is
 * `idempotencyKeyInProgress`.
 */
export class IdempotencyService {
  readonly #pollMs: number;

  constructor(private readonly deps: IdempotencyServiceDeps) {
    this.#pollMs = deps.pollMs ?? 100;
  }

  async start(scope: IdempotencyKeyScope, fingerprint: string, waitMs: number): Promise<IdempotentStart> {
    const holder = randomUUID();
    const { clock } = this.deps;
    const waitUntil = monotonicMsOf(clock) + Math.max(0, waitMs);
    for (;;) {
      const taken = await claimIdempotencyKey(this.deps.db, {
        ...scope,
        fingerprint,
        holder,
        leaseMs: IDEMPOTENCY_IN_PROGRESS_LEASE_MS,
        ttlMs: IDEMPOTENCY_KEY_TTL_MS,
      });
      if (taken) return { kind: "run", ticket: { scope, holder } };
      const stored = await findIdempotencyKey(this.deps.db, scope);
      // Gone between the two statements (released, or just expired): claim again at once.
      if (!stored) continue;
      const verdict = repeatVerdict(stored, fingerprint);
      if (verdict.kind === "mismatch") throw new ServiceError("idempotencyKeyReused");
      if (verdict.kind === "replay") return verdict;
      if (monotonicMsOf(clock) + this.#pollMs > waitUntil) throw new ServiceError("idempotencyKeyInProgress");
      await clock.sleep(this.#pollMs);
    }
  }

  /**
   * Keeps the answer for repeats when it is the request's outcome (isFinalAnswer); otherwise frees
   * the key so a retry runs again.
   */
  async finish(ticket: IdempotencyTicket, status: number, body: unknown): Promise<void> {
    const code = errorCodeOf(body);
    if (!isFinalAnswer(status, code)) return this.abandon(ticket);
    const kept = await completeIdempotencyKey(this.deps.db, {
      ...ticket.scope,
      holder: ticket.holder,
      status,
      body,
    });
    if (!kept) {
      this.deps.logger.warn(
        { route: ticket.scope.route },
        "an idempotency key was taken over before its answer was stored",
      );
    }
  }

  async abandon(ticket: IdempotencyTicket): Promise<void> {
    await releaseIdempotencyKey(this.deps.db, { ...ticket.scope, holder: ticket.holder });
  }
}

function errorCodeOf(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const code = (body as { error?: unknown }).error;
  return typeof code === "string" ? code : undefined;
}
