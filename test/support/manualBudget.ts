import { PostgresUpstreamBudget } from "../../src/budget/postgresUpstreamBudget.ts";
import type { Db } from "../../src/db/database.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import type { ManualClock } from "./manualClock.ts";

/**
 * The shared upstream budget on a test's database with its time injected: the slot statements
 * compare with the ManualClock's time instead of the database's, so windows, leases and deadlines
 * move only when the test moves them. Each call is one more "process" (its own local queue).
 */
export function manualBudget(options: {
  db: Db;
  clock: ManualClock;
  credentialKey: Buffer;
  slots?: number;
  windowMs?: number;
  backgroundShare?: number;
  leaseMs?: number;
  events?: EventBus;
}): PostgresUpstreamBudget {
  return new PostgresUpstreamBudget({
    db: options.db,
    clock: options.clock,
    events: options.events ?? new EventBus(),
    logger: createLogger({ level: "silent" }),
    limits: {
      slots: options.slots ?? 10,
      windowMs: options.windowMs ?? 1_100,
      backgroundShare: options.backgroundShare ?? 3,
    },
    credentialKey: options.credentialKey,
    leaseMs: options.leaseMs ?? 20_000,
    databaseTime: () => options.clock.now(),
    random: () => 0,
  });
}
