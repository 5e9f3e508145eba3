import type { FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import type { MeteredWriteContext } from "../domain/meteredWrites.ts";
import type { OperatorBearer } from "../domain/operatorTokens.ts";
import type { AllocationLock } from "../locks/reentrantLock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import type { AllocationUpstream } from "./upstreamPort.ts";

/** What allocation is composed from: every side effect behind an adapter. */
export interface AllocationDeps {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  upstream: AllocationUpstream;
  lock: AllocationLock;
  /** Where flags are read from, per use (defaults to process.env; tests pass their own). */
  env?: FlagSource;
  /**
   * The org's brand sub-workspaces rebalancing may reclaim from (spec/allocation.md §11); defaults
   * to the brands table. Tests of pure allocation pass their own.
   */
  siblings?: SiblingSource;
  /**
   * The operator's upstream bearer (SERENITY_UPSTREAM_TOKEN), preferred for reads of a parent's
   * metering: it sees every parent (spec/allocation.md §13; without it the caller's bearer reads).
   */
  operatorBearer?: OperatorBearer;
}

/** A brand sub-workspace of an org, as rebalancing sees it. */
export interface SiblingWorkspace {
  brandId: string | null;
  subWorkspaceId: string;
}

export type SiblingSource = (orgId: string) => Promise<SiblingWorkspace[]>;

/** The logger of an operation on `target`: every line says for whom and on which sub-workspace. */
export function targetLogger(deps: Pick<AllocationDeps, "logger">, target: AllocationTarget): Logger {
  return deps.logger.child({
    requestId: target.requestId,
    orgId: target.orgId,
    brandId: target.brandId,
    subWorkspaceId: target.subWorkspaceId,
  });
}

/**
 * The sub-workspace an allocation operation acts on, and for whom: a guard's context (the same
 * fields, the same `null` for an absent request id) once its sub-workspace is known. The sweep and
 * the reconciler build one for a workspace whose brand may be gone.
 */
export interface AllocationTarget extends Pick<MeteredWriteContext, "orgId" | "bearer" | "requestId"> {
  brandId: string | null;
  subWorkspaceId: string;
  /** The org's pool, when the caller knows it (a guard does): read to refresh what is known of it. */
  parentWorkspaceId?: string;
}

/**
 * How a transfer takes a "workspace not ready" answer. `failFast` fails at once with workspaceBusy
 * (the edge budget is about 15 s): every metered-write guard's transfers, on request paths and in
 * jobs alike. `settle` is for the operators' releases (the sweep, the upstream reconciler): it
 * waits for the workspace to settle, retrying not-ready up to 3 times with 1/2/3 s backoff. The
 * top-up metric's `path` label and the docs use the same two names (`fail_fast`, `settle`).
 */
export type TransferPath = "failFast" | "settle";
