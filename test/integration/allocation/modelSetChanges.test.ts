import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { announced, ANNOUNCEMENT_HOLD_MS } from "../../../src/allocation/announced.ts";
import type { GuardedSection } from "../../../src/allocation/guardedSection.ts";
import { modelAdd } from "../../../src/allocation/modelSetChanges.ts";
import { readSectionStart } from "../../../src/db/allocation/acquireAllocationLock.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * A model add's announcement on the database (docs/decisions/0030 addendum, 0045), as the statement
 * that takes a section's lease answers it: in flight from its begin until its end, or — when its end
 * is never written (the process died after sending it) — until its hold is over on the database's
 * clock, driven here by hand. The adding section counts its own changes.
 */

const ORG_ID = "00000000-0000-4000-8000-000000000038";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.destroy();
});

describe("a model add's announcement", () => {
  it("is in flight until its end; an end never written stops holding once the hold is over", async () => {
    const clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
    const deps = { db: db.db, clock, logger: createLogger({ level: "silent" }) };
    const subWorkspaceId = "sw-model-adds";
    const seen = async () =>
      (await readSectionStart(db.db, subWorkspaceId, clock.databaseTime(), 30_000)).entry;
    // The section that adds: it counted the changes it saw before working its need out.
    const section = { version: 0 } as GuardedSection;
    expect(await seen()).toEqual({ version: 0, announced: false });

    // Announced, sent, answered: in flight while the call is on its way, not after.
    await announced(deps, modelAdd(deps, ORG_ID, subWorkspaceId, section), async () => {
      expect(await seen()).toEqual({ version: 1, announced: true });
    });
    expect(await seen()).toEqual({ version: 2, announced: false });
    expect(section.version).toBe(2);

    // Begun, and the process died before writing its end: held for ANNOUNCEMENT_HOLD_MS only.
    await modelAdd(deps, ORG_ID, subWorkspaceId, section).begin({
      now: clock.databaseTime(),
      holdMs: ANNOUNCEMENT_HOLD_MS,
    });
    clock.advance(ANNOUNCEMENT_HOLD_MS - 1);
    expect(await seen()).toEqual({ version: 3, announced: true });
    clock.advance(2);
    expect(await seen()).toEqual({ version: 3, announced: false });

    // The next add counts afresh: the dead one's count does not linger in flight.
    await announced(deps, modelAdd(deps, ORG_ID, subWorkspaceId, section), async () => {
      expect(await seen()).toEqual({ version: 4, announced: true });
    });
    expect(await seen()).toEqual({ version: 5, announced: false });
  });
});
