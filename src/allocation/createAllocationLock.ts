import type { FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { type AllocationLock, type LockProvider, reentrant } from "../locks/reentrantLock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { createDatabaseLockProvider } from "./databaseAllocationLock.ts";

/**
 * The allocation lock of a process: the cross-process database lease (docs/decisions/0001), made
 * reentrant: each outermost section is handed what taking the lease answered and a scope its nested
 * sections share (guardedSection.ts). `provider` replaces the lease only where the
 * composition root is handed one — the multi-process suite's negative control and the
 * single-process replay benchmark; nothing a deployment sets selects another (docs/decisions/0039).
 */
export function createAllocationLock(deps: {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  env?: FlagSource;
  provider?: LockProvider;
}): AllocationLock {
  return reentrant(deps.provider ?? createDatabaseLockProvider(deps));
}
