import type { MeteredWriteGuard } from "../domain/meteredWrites.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { KnownFactsDeps } from "../markets/knownModels.ts";
import type { ProjectRef } from "../markets/market.ts";
import type { Logger } from "../observability/logger.ts";
import type { BrandNames } from "./promptEntries.ts";

/** One ready market as a prompt or category operation acts on it, tenancy already checked. */
export interface MarketScope {
  marketId: string;
  ref: ProjectRef;
  projects: ProjectEngineClient;
  /** The metered-write guard of the market's workspace: every publish goes through it. */
  guard: MeteredWriteGuard;
  known: KnownFactsDeps;
  log: Logger;
  brand: BrandNames;
  /** The caller (`sub`), stamped as the prompts' `updated_by`. */
  actor: string;
}

/** The market's project published once, through the guard like any publish (spec/gateway.md §3). */
export async function publishMarket(scope: MarketScope): Promise<void> {
  const { ref } = scope;
  await scope.guard.singleWrite("publish", {}, () =>
    scope.projects.publishProject(ref.bearer, ref.workspaceId, ref.projectId),
  );
}
