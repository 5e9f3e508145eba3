import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ephemeralCredentialKey, resolveCredentialKey } from "../../../src/credentials/credentialKey.ts";
import { CredentialStore } from "../../../src/credentials/credentialStore.ts";
import { findCredential } from "../../../src/db/credentials/findCredential.ts";
import { credentials } from "../../../src/db/schema.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

let db: TestDatabase;
const clock = new ManualClock(new Date("2026-03-01T00:00:00.000Z"));
const key = ephemeralCredentialKey();
const logger = createLogger({ level: "silent" });
let store: CredentialStore;

beforeAll(async () => {
  db = await createTestDatabase();
  store = new CredentialStore({ db: db.db, clock, logger, key });
});
afterAll(() => db.destroy());

const TOKEN = "opaque-upstream-token-ABCDEF0123456789";

describe("the credential store", () => {
  it("seals and exchanges a token; the row never holds it in the clear", async () => {
    const id = await store.seal("user-1", TOKEN);
    expect(await store.exchange(id)).toEqual({ status: "ok", token: TOKEN });
    const row = await findCredential(db.db, id);
    expect(row).toMatchObject({ ownerSub: "user-1", audience: "upstream", invalidatedAt: null });
    expect(row!.sealed!.includes(Buffer.from(TOKEN))).toBe(false);
    expect(JSON.stringify({ ...row, sealed: row!.sealed!.toString("base64") })).not.toContain(TOKEN);
  });

  it("detects tampering, bytes moved onto another row, and a different key", async () => {
    const id = await store.seal("user-1", TOKEN);
    const other = await store.seal("user-2", "another-token-xyz");
    const row = await findCredential(db.db, id);
    const flipped = Buffer.from(row!.sealed!);
    flipped[flipped.length - 1]! ^= 0x01;
    await db.db.update(credentials).set({ sealed: flipped }).where(eq(credentials.id, id));
    expect(await store.exchange(id)).toEqual({ status: "NEEDS_REAUTH", reason: "unreadable" });

    await db.db.update(credentials).set({ sealed: row!.sealed }).where(eq(credentials.id, other));
    expect(await store.exchange(other)).toEqual({ status: "NEEDS_REAUTH", reason: "unreadable" });

    const fresh = await store.seal("user-1", TOKEN);
    const otherKey = new CredentialStore({ db: db.db, clock, logger, key: ephemeralCredentialKey() });
    expect(await otherKey.exchange(fresh)).toEqual({ status: "NEEDS_REAUTH", reason: "unreadable" });
  });

  it("expires at the JWT's exp, else after SERENITY_CREDENTIAL_TTL (default 1 h)", async () => {
    const exp = Math.floor(clock.now().getTime() / 1000) + 300;
    const jwt = await new SignJWT({ sub: "user-1" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode("some-other-issuers-secret-000000"));
    const jwtId = await store.seal("user-1", jwt);
    expect((await findCredential(db.db, jwtId))!.expiresAt.getTime()).toBe(exp * 1000);

    const opaqueId = await store.seal("user-1", TOKEN);
    expect((await findCredential(db.db, opaqueId))!.expiresAt.getTime()).toBe(
      clock.now().getTime() + 3_600_000,
    );
    const shortTtl = new CredentialStore({
      db: db.db,
      clock,
      logger,
      key,
      env: { SERENITY_CREDENTIAL_TTL: "90s" },
    });
    const shortId = await shortTtl.seal("user-1", TOKEN);
    expect((await findCredential(db.db, shortId))!.expiresAt.getTime()).toBe(clock.now().getTime() + 90_000);

    clock.advance(299_000);
    expect((await store.exchange(jwtId)).status).toBe("ok");
    clock.advance(1_000);
    expect(await store.exchange(jwtId)).toEqual({ status: "NEEDS_REAUTH", reason: "expired" });
    expect(await store.exchange(shortId)).toEqual({ status: "NEEDS_REAUTH", reason: "expired" });
    expect((await store.exchange(opaqueId)).status).toBe("ok");
  });

  it("invalidation deletes the sealed bytes; a missing id needs reauth too", async () => {
    const id = await store.seal("user-1", TOKEN);
    await store.invalidate(id);
    await store.invalidate(id);
    const row = await findCredential(db.db, id);
    expect(row).toMatchObject({ sealed: null });
    expect(row!.invalidatedAt).toEqual(clock.now());
    expect(await store.exchange(id)).toEqual({ status: "NEEDS_REAUTH", reason: "invalidated" });
    expect(await store.exchange("00000000-0000-4000-8000-000000000000")).toEqual({
      status: "NEEDS_REAUTH",
      reason: "missing",
    });
    await store.delete(id);
    expect(await findCredential(db.db, id)).toBeUndefined();
  });
});

describe("the sealing key", () => {
  it("uses SERENITY_CREDENTIAL_KEY, else generates one key file (0600) that every process shares", async () => {
    const configured = Buffer.alloc(32, 7).toString("base64");
    expect(await resolveCredentialKey({ credentialKey: configured, dataDir: "/nonexistent" })).toEqual(
      Buffer.alloc(32, 7),
    );
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-key-"));
    try {
      const [first, second] = await Promise.all([
        resolveCredentialKey({ credentialKey: undefined, dataDir }),
        resolveCredentialKey({ credentialKey: undefined, dataDir }),
      ]);
      expect(first).toHaveLength(32);
      expect(second).toEqual(first);
      const stat = await fs.stat(path.join(dataDir, "credential-key"));
      expect(stat.mode & 0o777).toBe(0o600);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
