import { randomBytes } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CredentialStore } from "../../../src/credentials/credentialStore.ts";
import { openDatabase } from "../../../src/db/database.ts";
import { runMigrations } from "../../../src/db/migrate.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { runCli } from "../../support/cli.ts";
import { createEmptyDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

/** `serenity credentials reseal` as an operator runs it after switching SERENITY_CREDENTIAL_KEY. */
let database: { url: string; destroy(): Promise<void> };
beforeAll(async () => {
  database = await createEmptyDatabase();
  // Operator commands never migrate (docs/decisions/0038): the deploy's `serenity migrate` runs first.
  await runMigrations(database.url);
});
afterAll(() => database.destroy());

const oldKey = randomBytes(32).toString("base64");
const newKey = randomBytes(32).toString("base64");

function reseal(env: Record<string, string>, ...flags: string[]) {
  return runCli(["credentials", "reseal", ...flags], { DATABASE_URL: database.url, ...env }, 120_000);
}

describe("serenity credentials reseal", () => {
  it("moves credentials sealed under the previous key to the current one, shows progress, and is idempotent", async () => {
    // The first run finds nothing.
    const empty = await reseal({ SERENITY_CREDENTIAL_KEY: oldKey }, "--json");
    expect(empty, empty.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(empty.stdout)).toMatchObject({ total: 0, resealed: 0 });

    const opened = openDatabase(database.url);
    const clock = new ManualClock(new Date());
    const logger = createLogger({ level: "silent" });
    const ids: string[] = [];
    try {
      const before = new CredentialStore({
        db: opened.db,
        clock,
        logger,
        key: Buffer.from(oldKey, "base64"),
      });
      for (let i = 0; i < 3; i++) ids.push(await before.seal(`user-${i}`, `token-${i}`));

      const rotated = {
        SERENITY_CREDENTIAL_KEY: newKey,
        SERENITY_CREDENTIAL_KEY_PREVIOUS: oldKey,
        SERENITY_BUDGET_KEY: oldKey,
      };
      const moved = await reseal(rotated);
      expect(moved, moved.stderr).toMatchObject({ code: 0 });
      expect(moved.stderr).toContain("reseal: 3/3 resealed 3");
      expect(moved.stdout).toContain("moved to the current key: 3");

      const again = await reseal(rotated, "--json");
      expect(JSON.parse(again.stdout)).toMatchObject({ total: 3, resealed: 0, current: 3 });

      // The previous key can go: every credential opens under the current key alone.
      const after = new CredentialStore({ db: opened.db, clock, logger, key: Buffer.from(newKey, "base64") });
      for (const [i, id] of ids.entries())
        expect(await after.exchange(id)).toEqual({ status: "ok", token: `token-${i}` });

      // A credential no given key opens is reported, and the run exits 2 for the operator to look.
      const stray = await reseal({ SERENITY_CREDENTIAL_KEY: randomBytes(32).toString("base64") }, "--json");
      expect(stray.code).toBe(2);
      expect(JSON.parse(stray.stdout)).toMatchObject({ unreadable: 3 });
    } finally {
      await opened.close();
    }
  }, 600_000);
});
