import { type Clock, systemClock } from "../../src/domain/clock.ts";
import { ServiceError } from "../../src/domain/errors.ts";
import type { LockLease, LockProvider } from "../../src/locks/reentrantLock.ts";

/**
 * A FIFO queue per sub-workspace inside one process, the lock docs/decisions/0001 rejected. It
 * does nothing across processes, which is what the multi-process suite uses it to show (its
 * negative control runs `inProcessLockServe.ts`, which hands it to the composition root). The
 * production selector never offers it (docs/decisions/0039). Without a timeout a waiter waits as
 * long as it takes; with one (rebalancing's short tries) it gives up through `clock` and leaves
 * the queue.
 */
export function createInProcessLockProvider(clock: Clock = systemClock): LockProvider {
  /** Per held sub-workspace: the waiters, each woken with the lock handed over to it. */
  const queues = new Map<string, (() => void)[]>();

  function leaseOf(subWorkspaceId: string): LockLease {
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const next = queues.get(subWorkspaceId)?.shift();
        if (next) next();
        else queues.delete(subWorkspaceId);
      },
    };
  }

  return {
    async acquire(subWorkspaceId, options = {}) {
      const waiters = queues.get(subWorkspaceId);
      if (!waiters) {
        queues.set(subWorkspaceId, []);
        return leaseOf(subWorkspaceId);
      }
      const busy = () =>
        new ServiceError("workspaceBusy", { details: { subWorkspaceId, reason: "lockTimeout" } });
      if (options.timeoutMs === 0) throw busy();
      let handOver!: () => void;
      const granted = new Promise<void>((resolve) => (handOver = resolve));
      waiters.push(handOver);
      if (options.timeoutMs === undefined) {
        await granted;
        return leaseOf(subWorkspaceId);
      }
      const stop = new AbortController();
      await Promise.race([granted, clock.sleep(options.timeoutMs, stop.signal).catch(() => undefined)]);
      stop.abort("granted");
      const index = waiters.indexOf(handOver);
      // Still queued: the wait ran out before the lock was handed over.
      if (index >= 0) {
        waiters.splice(index, 1);
        throw busy();
      }
      return leaseOf(subWorkspaceId);
    },
  };
}
