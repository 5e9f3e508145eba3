import { gatewayAllocationUpstream } from "../allocation/gatewayAllocationUpstream.ts";
import { UpstreamReconciler, type UpstreamReconcilerDeps } from "../operations/upstreamReconciler.ts";
import type { Runtime } from "./runtime.ts";

/** The upstream reconciler over a runtime's database, gateway client and allocation (worker, audit). */
export function upstreamReconcilerOf(runtime: Runtime): UpstreamReconciler {
  return new UpstreamReconciler(upstreamReconcilerDepsOf(runtime));
}

/** What the reconciler and the operator's reconcile actions run on, from a runtime. */
export function upstreamReconcilerDepsOf(runtime: Runtime): UpstreamReconcilerDeps {
  return {
    db: runtime.database.db,
    clock: runtime.clock,
    logger: runtime.logger,
    events: runtime.events,
    gateway: runtime.gateway,
    upstream: gatewayAllocationUpstream(runtime.gateway),
    allocation: runtime.services.allocation,
    brandLease: runtime.services.brandLease,
    identity: { gateway: runtime.gateway, meteredWrites: runtime.services.allocation.meteredWrites },
  };
}

/** How many prompts a project holds, draft layer included: one page of one, its total. */
export function promptCounterOf(runtime: Runtime) {
  return async (bearer: string, workspaceId: string, projectId: string): Promise<number> =>
    (await runtime.gateway.projects.listPrompts(bearer, workspaceId, projectId, { limit: 1, draft: true }))
      .total;
}
