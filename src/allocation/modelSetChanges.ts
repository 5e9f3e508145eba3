import { beginModelSetChange } from "../db/modelSetChanges/beginModelSetChange.ts";
import { endModelSetChange } from "../db/modelSetChanges/endModelSetChange.ts";
import type { AllocationDeps } from "./allocationDeps.ts";

/**
 * A section works its need out before it holds the sub-workspace's lock (ADR 0013: those reads
 * overlap the lock wait), and the need of a prompt write multiplies by the project's model count.
 * A model added to the project meanwhile — by a section that held the lock first — makes the
 * writes stage more than the need said, and a publish bound built from that need would count
 * less than the publish moved (docs/decisions/0030, addendum). Model adds announce themselves
 * here; the statement that takes a section's lease answers where they stand (its first attempt,
 * before the need's reads start), and a section that sees one between then and its publish records
 * that publish without a basis (the conservative rule for one window).
 */

/** How long an announced model add whose end was never written (a process that died) counts as in flight. */
const MODEL_CHANGE_HOLD_MS = 120_000;

type Deps = Pick<AllocationDeps, "db" | "clock" | "logger">;

/**
 * Runs a model add announced: begun before it is sent (not best effort — unannounced, it is not
 * sent), ended after it is answered (best effort — unwritten, the hold runs out). `counted` is
 * called for each change written (its begin, its end): the section counts its own.
 */
export async function announcedModelAdd<T>(
  deps: Deps,
  subWorkspaceId: string,
  add: () => Promise<T>,
  counted: () => void,
): Promise<T> {
  await beginModelSetChange(deps.db, subWorkspaceId, {
    now: deps.clock.databaseTime?.(),
    holdMs: MODEL_CHANGE_HOLD_MS,
  });
  counted();
  try {
    return await add();
  } finally {
    await endModelSetChange(deps.db, subWorkspaceId).then(counted, (error: unknown) =>
      deps.logger.warn(
        { err: error, subWorkspaceId },
        "allocation: could not end a model add's announcement",
      ),
    );
  }
}
