import type { LockLease, LockProvider } from "./allocationLock.ts";

/**
 * TEST-ONLY: a promise chain per sub-workspace inside one process, the lock docs/decisions/0001
 * rejected. It does nothing across processes, which is what the multi-process test uses it to
 * show (selected with SERENITY_ALLOCATION_LOCK_MODE=in-process, see lockMode.ts).
 */
export function createInProcessLockProvider(): LockProvider {
  const tails = new Map<string, Promise<void>>();
  return {
    async acquire(subWorkspaceId) {
      const previous = tails.get(subWorkspaceId) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = previous.then(() => mine);
      tails.set(subWorkspaceId, tail);
      await previous;
      const lease: LockLease = {
        release: async () => {
          release();
          if (tails.get(subWorkspaceId) === tail) tails.delete(subWorkspaceId);
        },
      };
      return lease;
    },
  };
}
