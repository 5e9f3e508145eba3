import { randomBytes } from "node:crypto";

import { afterAll, beforeEach, describe, expect, it } from "vitest";

import { CredentialStore } from "../../../src/credentials/credentialStore.ts";
import type { CredentialKeyring } from "../../../src/credentials/keyring.ts";
import { resealCredentials } from "../../../src/credentials/resealCredentials.ts";
import { findCredential } from "../../../src/db/credentials/findCredential.ts";
import { credentials } from "../../../src/db/schema.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

const clock = new ManualClock(new Date("2026-03-01T00:00:00.000Z"));
const logger = createLogger({ level: "silent" });
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const rotated: CredentialKeyring = { current: newKey, previous: [oldKey] };

let db: TestDatabase;
beforeEach(async () => {
  await db?.destroy();
  db = await createTestDatabase();
});
afterAll(() => db.destroy());

function storeWith(key: Buffer | CredentialKeyring): CredentialStore {
  return new CredentialStore({ db: db.db, clock, logger, key });
}

async function sealUnderOldKey(count: number): Promise<Map<string, string>> {
  const old = storeWith(oldKey);
  const tokens = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const token = `upstream-token-${i}-${randomBytes(4).toString("hex")}`;
    tokens.set(await old.seal(`user-${i}`, token), token);
  }
  return tokens;
}

async function expectReadable(store: CredentialStore, tokens: Map<string, string>): Promise<void> {
  for (const [id, token] of tokens) expect(await store.exchange(id)).toEqual({ status: "ok", token });
}

describe("credential-key rotation", () => {
  it("reads credentials sealed under the old key, then reseals them so the old key can go", async () => {
    const tokens = await sealUnderOldKey(5);
    // Removing the old key before the reseal would lose them: that is what the reseal is for.
    const withoutOld = storeWith(newKey);
    for (const id of tokens.keys())
      expect(await withoutOld.exchange(id)).toEqual({ status: "NEEDS_REAUTH", reason: "unreadable" });

    await expectReadable(storeWith(rotated), tokens);
    const first = await resealCredentials({ db: db.db, keyring: rotated }, { batchSize: 2 });
    expect(first).toMatchObject({ total: 5, resealed: 5, current: 0, unreadable: 0, changed: 0 });

    await expectReadable(withoutOld, tokens);
    const again = await resealCredentials({ db: db.db, keyring: rotated }, { batchSize: 2 });
    expect(again).toMatchObject({ total: 5, resealed: 0, current: 5 });
  });

  it("a dry run counts what would move and writes nothing", async () => {
    const tokens = await sealUnderOldKey(3);
    const before = await db.db.select().from(credentials);
    expect(await resealCredentials({ db: db.db, keyring: rotated }, { dryRun: true })).toMatchObject({
      dryRun: true,
      resealed: 3,
    });
    expect(await db.db.select().from(credentials)).toEqual(before);
    for (const id of tokens.keys())
      expect(await storeWith(newKey).exchange(id)).toMatchObject({ status: "NEEDS_REAUTH" });
  });

  it("leaves credentials no key of the ring opens as they are, and skips invalidated ones", async () => {
    const stranger = storeWith(randomBytes(32));
    const lost = await stranger.seal("user-x", "sealed-under-a-key-nobody-gave");
    const tokens = await sealUnderOldKey(2);
    const gone = [...tokens.keys()][0]!;
    await storeWith(rotated).invalidate(gone);
    const bytes = (await findCredential(db.db, lost))!.sealed;

    const report = await resealCredentials({ db: db.db, keyring: rotated });
    expect(report).toMatchObject({ total: 2, resealed: 1, unreadable: 1 });
    expect((await findCredential(db.db, lost))!.sealed).toEqual(bytes);
    expect(await stranger.exchange(lost)).toMatchObject({ status: "ok" });
    expect(await findCredential(db.db, gone)).toMatchObject({ sealed: null });
  });

  it("never resurrects a credential a worker invalidates during the run, and workers read throughout", async () => {
    const tokens = await sealUnderOldKey(6);
    const ids = [...tokens.keys()].sort();
    const worker = storeWith(rotated);
    const late = ids.slice(3);
    const report = await resealCredentials(
      { db: db.db, keyring: rotated },
      {
        // One page holds every row: the last three are invalidated after the page was read.
        batchSize: 100,
        onItem: async (_outcome, progress) => {
          for (const [id, token] of tokens)
            if (!late.includes(id) || progress.resealed < 1)
              expect(await worker.exchange(id)).toEqual({ status: "ok", token });
          if (progress.resealed === 1) for (const id of late) await worker.invalidate(id);
        },
      },
    );
    expect(report).toMatchObject({ resealed: 3, changed: 3 });
    for (const id of late) expect(await findCredential(db.db, id)).toMatchObject({ sealed: null });
    for (const id of ids.slice(0, 3))
      expect(await storeWith(newKey).exchange(id)).toEqual({ status: "ok", token: tokens.get(id) });
  });

  it("two runs at once move every credential exactly once", async () => {
    const tokens = await sealUnderOldKey(20);
    const [a, b] = await Promise.all([
      resealCredentials({ db: db.db, keyring: rotated }, { batchSize: 3 }),
      resealCredentials({ db: db.db, keyring: rotated }, { batchSize: 3 }),
    ]);
    expect(a.resealed + b.resealed).toBe(20);
    expect(a.resealed + a.current + a.changed).toBe(20);
    expect(b.resealed + b.current + b.changed).toBe(20);
    await expectReadable(storeWith(newKey), tokens);
  });
});
