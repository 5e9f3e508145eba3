import type { FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { type AllocationLock, reentrant } from "../locks/reentrantLock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { createDatabaseLockProvider } from "./databaseAllocationLock.ts";
import { createInProcessLockProvider } from "./inProcessAllocationLock.ts";
import { allocationLockMode } from "./lockMode.ts";
import { withPublishBasisScope } from "./publishBasis.ts";

/**
 * The allocation lock of a process: the cross-process database lease, or — only when the test
 * switch SERENITY_ALLOCATION_LOCK_MODE=in-process is set — the single-process lock. Each outermost
 * section runs in its own publish-basis scope (publishBasis.ts): what its guard read says a
 * publish inside it can move.
 */
/** The reentrant lock's `enter`: every outermost section gets its publish-basis scope. */
export const SECTION_SCOPE = {
  enter: <T>(subWorkspaceId: string, _lease: unknown, work: () => Promise<T>) =>
    withPublishBasisScope(subWorkspaceId, work),
};

export function createAllocationLock(deps: {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  env?: FlagSource;
}): AllocationLock {
  if (allocationLockMode(deps.env) === "in-process") {
    deps.logger.warn("allocation: using the in-process lock (test-only; not safe across processes)");
    return reentrant(createInProcessLockProvider(deps.clock), SECTION_SCOPE);
  }
  return reentrant(createDatabaseLockProvider(deps), SECTION_SCOPE);
}
