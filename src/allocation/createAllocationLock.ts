import type { FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { type AllocationLock, type LockProvider, reentrant } from "../locks/reentrantLock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { createDatabaseLockProvider } from "./databaseAllocationLock.ts";
import { withPublishBasisScope } from "./publishBasis.ts";

/** The reentrant lock's `enter`: every outermost section gets its publish-basis scope. */
export const SECTION_SCOPE = {
  enter: <T>(subWorkspaceId: string, _lease: unknown, work: () => Promise<T>) =>
    withPublishBasisScope(subWorkspaceId, work),
};

/**
 * The allocation lock of a process: the cross-process database lease (docs/decisions/0001), made
 * reentrant, each outermost section in its own publish-basis scope (publishBasis.ts: what its
 * guard read says a publish inside it can move). `provider` replaces the lease only where the
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
  return reentrant(deps.provider ?? createDatabaseLockProvider(deps), SECTION_SCOPE);
}
