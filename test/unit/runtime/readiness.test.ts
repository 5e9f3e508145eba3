import { describe, expect, it } from "vitest";

import type { ReadinessReading } from "../../../src/db/readReadiness.ts";
import { createReadiness, READINESS_CACHE_MS } from "../../../src/runtime/readiness.ts";
import { ManualClock } from "../../support/manualClock.ts";

function counted(reading: () => Promise<ReadinessReading>) {
  const calls = { n: 0 };
  return {
    calls,
    read: () => {
      calls.n += 1;
      return reading();
    },
  };
}

describe("readiness", () => {
  it("a flood of checks costs one query per cache period: concurrent checks join the one in flight", async () => {
    const clock = new ManualClock();
    const reader = counted(async () => ({ database: true, appliedMigrations: 3 }));
    const readiness = createReadiness("", {
      timeoutMs: 500,
      clock,
      expectedMigrations: 3,
      read: reader.read,
    });
    const reports = await Promise.all(Array.from({ length: 200 }, () => readiness.check()));
    expect(reports.every((report) => report.ready)).toBe(true);
    expect(reader.calls.n).toBe(1);

    clock.advance(READINESS_CACHE_MS - 1);
    await readiness.check();
    expect(reader.calls.n).toBe(1);
    clock.advance(1);
    await readiness.check();
    expect(reader.calls.n).toBe(2);
  });

  it("is not ready while a migration is missing, or the database does not answer", async () => {
    const clock = new ManualClock();
    const behind = createReadiness("", {
      timeoutMs: 500,
      clock,
      expectedMigrations: 3,
      read: async () => ({ database: true, appliedMigrations: 2 }),
    });
    expect(await behind.check()).toEqual({ ready: false, checks: { database: true, migrations: false } });
    const failing = createReadiness("", {
      timeoutMs: 500,
      clock,
      expectedMigrations: 3,
      read: () => Promise.reject(new Error("connection refused")),
    });
    expect(await failing.check()).toEqual({ ready: false, checks: { database: false, migrations: false } });
  });

  it("answers not ready when the database does not answer within the timeout, whatever the query does", async () => {
    const readiness = createReadiness("", {
      timeoutMs: 5,
      clock: new ManualClock(),
      expectedMigrations: 0,
      read: () => new Promise<ReadinessReading>(() => {}),
    });
    expect(await readiness.check()).toEqual({ ready: false, checks: { database: false, migrations: false } });
  });
});
