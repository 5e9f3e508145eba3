import type { OrgRow } from "../db/orgs/orgRow.ts";
import { recordParentMetering } from "../db/resourceObservations/recordParentMetering.ts";
import { monotonicMsOf } from "../domain/clock.ts";
import { flipOf, meteringOf, type MeteringState } from "../domain/metering.ts";
import { operatorBearerFor } from "../domain/operatorTokens.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import type { ServiceEvents } from "../observability/events.ts";
import type { ParentMeteringPort } from "../orgs/orgService.ts";
import type { AllocationDeps } from "./allocationDeps.ts";

/**
 * Each parent's own AI metering (spec/allocation.md §13, docs/decisions/0034): read from the
 * `ai` product's `limits_enabled` of `GET /v1/workspaces/{parent}` and kept with its `asOf` on the
 * parent's entry of the resources record, where every load of the org reads it (findOrgById).
 *
 * Read by the pool sampler on its pass, when an org is created or its parent changes, in the
 * background when a guarded write finds it unknown, and at once after a disguised quota 405 on an
 * org recorded unmetered (the safety net). A failed read changes nothing: a known state stays with
 * its old `asOf`, an unknown one stays unknown (and behaves as metered).
 */

export type MeteringReadReason = ServiceEvents["allocation.meteringRead"]["reason"];

type MeteringDeps = Pick<AllocationDeps, "db" | "clock" | "events" | "logger" | "upstream" | "env">;

/** The org whose parent is read: its id and its parent (the pool). */
export type MeteredOrg = Pick<OrgRow, "id" | "parentWorkspaceId">;

/**
 * The bearer a metering read uses: the operator's (SERENITY_UPSTREAM_TOKEN), which sees every
 * parent, else the one in hand — the caller's, or the member's credential the pool sampler chose.
 */
export function meteringBearer(
  deps: Pick<AllocationDeps, "operatorBearer">,
  orgId: string,
  inHand: string,
): string {
  return operatorBearerFor(deps.operatorBearer, orgId) ?? inHand;
}

/**
 * Reads the parent's metering now and records it; answers what is known afterwards — the state
 * read, or `unknown` when the read failed or its answer carries no `ai` flag. Never throws. A flip
 * between the two known states is emitted and logged with the org id.
 */
export async function readParentMetering(
  deps: MeteringDeps,
  org: MeteredOrg,
  bearer: string,
  reason: MeteringReadReason,
  options: { signal?: AbortSignal } = {},
): Promise<MeteringState> {
  const parentWorkspaceId = org.parentWorkspaceId;
  const read = deps.upstream.readAiLimitsEnabled;
  if (!parentWorkspaceId || !read) return "unknown";
  const log = deps.logger.child({ orgId: org.id, parentWorkspaceId, reason });
  const asOf = deps.clock.now();
  let state: MeteringState;
  try {
    state = meteringOf(await read(bearer, parentWorkspaceId, { signal: options.signal }));
  } catch (error) {
    log.warn({ err: error }, "allocation: could not read the parent's AI metering");
    deps.events.emit("allocation.meteringRead", { orgId: org.id, reason, outcome: "failed" });
    return "unknown";
  }
  deps.events.emit("allocation.meteringRead", { orgId: org.id, reason, outcome: state });
  if (state === "unknown") {
    log.warn("allocation: the parent's answer carries no AI metering flag; metering stays unknown");
    return state;
  }
  try {
    const recorded = await recordParentMetering(deps.db, {
      orgId: org.id,
      parentWorkspaceId,
      metering: state,
      asOf,
    });
    const flip = recorded.outcome === "recorded" ? flipOf(recorded.previous, state) : undefined;
    if (flip) {
      log.warn(flip, "allocation: the parent's AI metering changed");
      deps.events.emit("allocation.meteringFlip", { orgId: org.id, ...flip, reason });
    }
  } catch (error) {
    // The read stands for the caller; the record catches up at the next read.
    log.warn({ err: error, metering: state }, "allocation: could not record the parent's AI metering");
  }
  return state;
}

/** Orgs whose metering this process is reading in the background now, and when each last started. */
const inFlight = new Map<string, Promise<void>>();
const lastStartedMs = new Map<string, number>();

/**
 * How soon after a background read of one org another may start in this process: an org whose
 * parent cannot be read does not cost every guarded write an upstream call.
 */
export const METERING_RETRY_MS = 10_000;

/**
 * A guarded write found the org's metering unknown: reads it in the background (never awaited by
 * the write, which goes on as metered), one read at a time per org in a process, at most one per
 * METERING_RETRY_MS.
 */
export function readMeteringInBackground(deps: MeteringDeps, org: MeteredOrg, bearer: string): void {
  if (!org.parentWorkspaceId || !deps.upstream.readAiLimitsEnabled || inFlight.has(org.id)) return;
  const nowMs = monotonicMsOf(deps.clock);
  const last = lastStartedMs.get(org.id);
  if (last !== undefined && nowMs - last < METERING_RETRY_MS) return;
  lastStartedMs.set(org.id, nowMs);
  // Background work: it must not inherit the request's interactive scope and edge deadline.
  const read = asBackgroundWork(() => readParentMetering(deps, org, bearer, "unknown")).then(
    () => undefined,
    () => undefined,
  );
  inFlight.set(org.id, read);
  void read.finally(() => inFlight.delete(org.id));
}

/** Resolves once this process's background metering reads have ended (tests, shutdown). */
export async function meteringReadsSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()]);
}

/** What the org service calls when an org gets a parent (created with one, or a new one). */
export function parentMeteringPort(
  deps: MeteringDeps & Pick<AllocationDeps, "operatorBearer">,
): ParentMeteringPort {
  return {
    learn: async (org, bearer, reason) => {
      await readParentMetering(deps, org, meteringBearer(deps, org.id, bearer), reason);
    },
  };
}
