import type { LedgerPage } from "../../allocation/allocationService.ts";
import type { PoolView } from "../../poolView/poolView.ts";

export function poolViewView(view: PoolView) {
  return {
    ...view,
    metering: { state: view.metering.state, asOf: view.metering.asOf?.toISOString() ?? null },
    pool: view.pool ? { ...view.pool, asOf: view.pool.asOf.toISOString() } : null,
    brands: view.brands.map((brand) => ({ ...brand, asOf: brand.asOf?.toISOString() ?? null })),
    unattached: view.unattached.map((entry) => ({ ...entry, asOf: entry.asOf?.toISOString() ?? null })),
    sampledAt: view.sampledAt.toISOString(),
  };
}

export function ledgerPageView(page: LedgerPage) {
  return {
    items: page.items.map((entry) => ({
      id: entry.id,
      brandId: entry.brandId,
      subWorkspaceId: entry.subWorkspaceId,
      reason: entry.reason,
      before: entry.before,
      after: entry.after,
      outcome: entry.outcome,
      errorCode: entry.errorCode,
      requestId: entry.requestId,
      createdAt: entry.createdAt.toISOString(),
    })),
    nextBefore: page.nextBefore,
  };
}
