import { AsyncLocalStorage } from "node:async_hooks";

/**
 * A lease an upstream write is made under (a job delivery's lease, a brand's lease): `held()` says
 * whether the holder may still start a write, `lost()` the error to stop with when it may not.
 */
export interface WriteFence {
  held(): boolean;
  lost(): Error;
}

/**
 * The leases the current unit of work holds, outermost first. Every upstream write checks them
 * just before it is sent (and before each retry): a holder whose lease may have lapsed — a failed
 * renewal, or too little time left on its own monotonic clock — sends nothing more, and a write
 * already in flight is its last (docs/decisions/0023).
 */
const storage = new AsyncLocalStorage<readonly WriteFence[]>();

/** Runs `work` with `fence` added to the ambient ones. */
export function withWriteFence<T>(fence: WriteFence, work: () => T): T {
  return storage.run([...(storage.getStore() ?? []), fence], work);
}

/** Throws the first ambient fence's `lost()` error when it is no longer held. */
export function assertWriteFences(): void {
  for (const fence of storage.getStore() ?? []) {
    if (!fence.held()) throw fence.lost();
  }
}
