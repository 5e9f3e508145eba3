import { AsyncLocalStorage } from "node:async_hooks";

import { ServiceError } from "../domain/errors.ts";

/**
 * The per-sub-workspace allocation lock (spec/allocation.md §3.1, docs/decisions/0001). A lock
 * implementation only knows how to take and give back a lease; `reentrant()` adds the rule that a
 * section already holding a sub-workspace's lock may run nested guarded work without waiting for
 * itself (retryOnQuota's `ensure({})` inside a section, or a fan-out inside one request).
 */
export interface LockLease {
  /** `note`: what the section asks the release to do besides (the allocation lease's window restart). */
  release(note?: unknown): Promise<void>;
  /** What the statement that took the lease answered besides (the allocation lease: its record row). */
  state?: unknown;
  /**
   * False once the lease may have been lost (a renewal found it taken over, or no renewal
   * succeeded within its TTL): the section must not start another upstream write under it.
   * Absent for locks that cannot be lost (the in-process test lock).
   */
  held?(): boolean;
}

export interface AcquireOptions {
  /**
   * How long to wait instead of the configured lock timeout; 0 = a single attempt. Rebalancing
   * takes its siblings' locks with a short wait and skips a busy sibling (spec/allocation.md §11).
   */
  timeoutMs?: number;
  /**
   * Called once with what the first attempt answered (before any wait), or with `undefined` when
   * the provider answers nothing or the lock is already held here: a section starts the reads that
   * decide its need only then, so that answer is older than them.
   */
  onFirstAttempt?(state: unknown): void;
}

/**
 * What a section holding a lock is handed: what taking the lease answered (`undefined` for a nested
 * section or a provider that answers nothing), the outermost section's `scope` — shared by every
 * section nested in it — and `releaseNote`, passed to the lease's release.
 */
export interface HeldSection {
  state: unknown;
  scope: Record<string, unknown>;
  releaseNote?: unknown;
}

export interface LockProvider {
  /** Waits (bounded) for the sub-workspace's lock; throws `workspaceBusy` when the wait times out. */
  acquire(subWorkspaceId: string, options?: AcquireOptions): Promise<LockLease>;
}

export interface AllocationLock {
  withLock<T>(
    subWorkspaceId: string,
    work: (held: HeldSection) => Promise<T>,
    options?: Pick<AcquireOptions, "onFirstAttempt">,
  ): Promise<T>;
  /**
   * Throws `workspaceBusy` when the current section's lease on `subWorkspaceId` may have been lost;
   * a no-op outside a section. Called before each metered write: fencing a stalled holder.
   */
  assertHeld(subWorkspaceId: string): void;
  /**
   * Another sub-workspace's lock for a short, explicit hold (rebalancing lowers a sibling under the
   * sibling's own lock): waits at most `waitMs`, then answers `undefined` instead of throwing — as
   * it does at once for a lock the current async context holds (never wait on oneself). The lease
   * is not entered into the async context: the caller releases it.
   */
  tryAcquire(subWorkspaceId: string, waitMs: number): Promise<LockLease | undefined>;
}

/** What the current async context holds: per sub-workspace, the queue nested sections chain on. */
type HeldLocks = Map<string, { tail: Promise<void>; lease: LockLease; section: HeldSection }>;

export interface ReentrantOptions {
  /**
   * Wraps the work of each outermost section (nested ones run inside it already): the brand lease
   * puts its lease in the ambient write fence here.
   */
  enter?<T>(key: string, lease: LockLease, work: () => Promise<T>): Promise<T>;
}

export function reentrant(provider: LockProvider, options: ReentrantOptions = {}): AllocationLock {
  const held = new AsyncLocalStorage<HeldLocks>();

  function runHolding<T>(
    subWorkspaceId: string,
    lease: LockLease,
    section: HeldSection,
    work: () => Promise<T>,
  ): Promise<T> {
    const next: HeldLocks = new Map(held.getStore());
    next.set(subWorkspaceId, { tail: Promise.resolve(), lease, section });
    return held.run(next, work);
  }

  return {
    async withLock(subWorkspaceId, work, withOptions = {}) {
      let told = false;
      const tell = (state: unknown) => {
        if (told) return;
        told = true;
        withOptions.onFirstAttempt?.(state);
      };
      const outer = held.getStore()?.get(subWorkspaceId);
      if (outer) {
        tell(undefined);
        // Nested sections of the holder run one at a time among themselves, so two concurrent
        // nested ensures cannot send crossing absolute transfers; each gets its own queue for
        // deeper nesting, so nothing ever waits on itself.
        const previous = outer.tail;
        let done!: () => void;
        outer.tail = new Promise<void>((resolve) => (done = resolve));
        await previous;
        try {
          return await runHolding(subWorkspaceId, outer.lease, outer.section, () => work(outer.section));
        } finally {
          done();
        }
      }
      const lease = await provider.acquire(subWorkspaceId, { onFirstAttempt: tell });
      tell(undefined);
      const section: HeldSection = { state: lease.state, scope: {} };
      const enter = options.enter;
      const entered = enter ? () => enter(subWorkspaceId, lease, () => work(section)) : () => work(section);
      try {
        return await runHolding(subWorkspaceId, lease, section, entered);
      } finally {
        await lease.release(section.releaseNote);
      }
    },
    async tryAcquire(subWorkspaceId, waitMs) {
      if (held.getStore()?.has(subWorkspaceId)) return undefined;
      try {
        return await provider.acquire(subWorkspaceId, { timeoutMs: waitMs });
      } catch (error) {
        if (error instanceof ServiceError && error.code === "workspaceBusy") return undefined;
        throw error;
      }
    },
    assertHeld(subWorkspaceId) {
      const lease = held.getStore()?.get(subWorkspaceId)?.lease;
      if (lease?.held && !lease.held()) {
        throw new ServiceError("workspaceBusy", { details: { subWorkspaceId, reason: "leaseLost" } });
      }
    },
  };
}
