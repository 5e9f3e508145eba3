import { countSealedCredentials } from "../db/credentials/countSealedCredentials.ts";
import { listSealedCredentials } from "../db/credentials/listSealedCredentials.ts";
import { replaceSealedCredential } from "../db/credentials/replaceSealedCredential.ts";
import type { Db } from "../db/database.ts";
import { type CredentialKeyring, openWithKeyring, sealUnderCurrent } from "./keyring.ts";

/** What became of one credential. */
export type ResealOutcome =
  /** Sealed under a previous key, now under the current one. */
  | "resealed"
  /** Already under the current key: nothing to do (a second run finds only these). */
  | "current"
  /** No key of the ring opens it (sealed under a key no longer given, or tampered): left as is. */
  | "unreadable"
  /** Changed under us (a concurrent reseal, or invalidated by a worker): left to the winner. */
  | "changed";

export type ResealReport = Record<ResealOutcome, number> & { total: number; dryRun: boolean };

export interface ResealOptions {
  /** Credentials read per page (keyset by id). */
  batchSize?: number;
  /** Count what would move, write nothing. */
  dryRun?: boolean;
  onStart?: (total: number) => void;
  /** After each credential; awaited, so a caller can pace the run. */
  onItem?: (outcome: ResealOutcome, report: ResealReport) => void | Promise<void>;
}

export const DEFAULT_RESEAL_BATCH = 200;

/**
 * Moves every sealed credential to the keyring's current key (docs/decisions/0031). Idempotent: a
 * credential already under the current key is left alone, so a rerun after a crash or a second
 * operator's run only finishes the rest. Safe beside running workers: a credential is only ever
 * swapped if its bytes are still the ones read, so an invalidation or another reseal wins, and
 * a worker reading in between opens either the old bytes (a previous key) or the new ones.
 */
export async function resealCredentials(
  deps: { db: Db; keyring: CredentialKeyring },
  options: ResealOptions = {},
): Promise<ResealReport> {
  const { db, keyring } = deps;
  const batchSize = options.batchSize ?? DEFAULT_RESEAL_BATCH;
  const report: ResealReport = {
    total: await countSealedCredentials(db),
    dryRun: options.dryRun ?? false,
    resealed: 0,
    current: 0,
    unreadable: 0,
    changed: 0,
  };
  options.onStart?.(report.total);
  let afterId: string | undefined;
  for (;;) {
    const page = await listSealedCredentials(db, { afterId, limit: batchSize });
    if (page.length === 0) break;
    for (const row of page) {
      const binding = { credentialId: row.id, ownerSub: row.ownerSub, audience: row.audience };
      const opened = openWithKeyring(keyring, binding, row.sealed);
      let outcome: ResealOutcome;
      if (!opened) outcome = "unreadable";
      else if (opened.current) outcome = "current";
      else if (report.dryRun) outcome = "resealed";
      else {
        const to = sealUnderCurrent(keyring, binding, opened.token);
        outcome = (await replaceSealedCredential(db, { id: row.id, from: row.sealed, to }))
          ? "resealed"
          : "changed";
      }
      report[outcome] += 1;
      await options.onItem?.(outcome, report);
    }
    afterId = page.at(-1)!.id;
  }
  return report;
}
