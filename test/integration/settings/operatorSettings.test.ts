import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ServiceError } from "../../../src/domain/errors.ts";
import { OperatorSettings } from "../../../src/settings/operatorSettings.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * Operator settings (spec/generation.md §2): a row in PostgreSQL shared by every process, read
 * through a per-process cache of at most 60 s; only known keys with values of their type.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.destroy());

describe("operator settings", () => {
  it("defaults generation.consumerReady to true; another process sees a flip within 60 s", async () => {
    const clock = new ManualClock();
    const api = new OperatorSettings({ db: db.db, clock });
    const admin = new OperatorSettings({ db: db.db, clock });
    expect(await api.flag("generation.consumerReady")).toBe(true);

    await admin.set("generation.consumerReady", "FALSE");
    expect(await admin.flag("generation.consumerReady")).toBe(false);
    // Still cached in the other process...
    clock.advance(59_000);
    expect(await api.flag("generation.consumerReady")).toBe(true);
    // ...until the cache's 60 s are up.
    clock.advance(1_000);
    expect(await api.flag("generation.consumerReady")).toBe(false);
  });

  it("refuses unknown keys and values of the wrong type", async () => {
    const settings = new OperatorSettings({ db: db.db, clock: new ManualClock() });
    await expect(settings.set("generation.unknown", "true")).rejects.toBeInstanceOf(ServiceError);
    await expect(settings.set("generation.consumerReady", "maybe")).rejects.toMatchObject({
      code: "invalidRequest",
    });
  });
});
