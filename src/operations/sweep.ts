import { randomUUID } from "node:crypto";

import type { AllocationService } from "../allocation/allocationService.ts";
import type { ReleaseReport } from "../allocation/releaseSurplus.ts";
import type { ReleaseErrorCode } from "../allocation/upstreamFailures.ts";
import { type BrandSubWorkspaceRow, listBrandSubWorkspaces } from "../db/brands/listBrandSubWorkspaces.ts";
import type { DbExecutor } from "../db/database.ts";
import { type Dimension, DIMENSIONS, RELEASE_FLOOR, type Units } from "../domain/allocation.ts";
import type { Clock } from "../domain/clock.ts";
import { asBackgroundWork } from "../gateway/upstreamScope.ts";
import type { Logger } from "../observability/logger.ts";
import { emptyCheckpoint, readCheckpoint, type SweepCheckpoint, writeCheckpoint } from "./checkpoint.ts";

/**
 * `serenity sweep` (spec/operations.md §1): lowers every carved sub-workspace to what its usage
 * needs through the same release as the request path (the settle transfer path, ledger reason `sweep`).
 */

export const SWEEP_OUTCOMES = [
  "released",
  "dryRun",
  "nothingToRelease",
  "requiresDecommission",
  // A publish into the sub-workspace is too recent for its usage to be trusted: left for a later run.
  "deferred",
  "error",
] as const;
export type SweepOutcome = (typeof SWEEP_OUTCOMES)[number];

/**
 * Errors that say something about one workspace, not about the run: they reset the streak. An
 * outage (`unavailable`) is classified but not expected — several in a row should stop the run.
 */
export const EXPECTED_SWEEP_ERRORS: readonly string[] = [
  "orgPoolExhausted",
  "brandAiLimit",
  "workspaceBusy",
  "forbidden",
  "gone",
] satisfies ReleaseErrorCode[];

/** The code recorded for an error the release could not classify, or a thrown exception. */
export const UNEXPECTED_ERROR = "unexpected";

export const SWEEP_DEFAULTS = {
  rateLimitMs: 300,
  maxConsecutiveErrors: 5,
  floor: RELEASE_FLOOR as Units,
};

export interface SweepDeps {
  db: DbExecutor;
  clock: Clock;
  logger: Logger;
  allocation: Pick<AllocationService, "releaseSurplus">;
}

export interface SweepItem extends BrandSubWorkspaceRow {
  outcome: SweepOutcome;
  /** With outcome `error`: the release's code, or `unexpected`. */
  errorCode?: string;
  /** With outcome `error`: whether the code is one of EXPECTED_SWEEP_ERRORS. */
  expected?: boolean;
  before?: Units;
  target?: Units;
  after?: Units;
  /** Units given back (or, for a dry run, that would be given back) to the org's pool. */
  returned?: Units;
  requiresDecommission: Dimension[];
}

export interface SweepProgress {
  index: number;
  total: number;
  returned: Units;
  errors: number;
}

export interface SweepOptions {
  /** The operator's upstream bearer. */
  bearer: string;
  dryRun?: boolean;
  orgIds?: string[];
  brandIds?: string[];
  /** At most this many sub-workspaces, counted after the checkpointed ones are skipped. */
  limit?: number;
  rateLimitMs?: number;
  maxConsecutiveErrors?: number;
  floor?: Units;
  checkpointFile: string;
  retryFailed?: boolean;
  /** Ignore (and overwrite) an existing checkpoint, readable or not. */
  fresh?: boolean;
  /** Called once the work list is known. */
  onStart?(total: number): void;
  onItem?(item: SweepItem, progress: SweepProgress): void;
}

export interface SweepReport {
  dryRun: boolean;
  items: SweepItem[];
  counts: Record<SweepOutcome, number>;
  /** Units returned per pool (the org's parent workspace id); for a dry run, what would be. */
  returnedByPool: Record<string, Units>;
  skipped: { done: number; failed: number };
  /** Errors outside EXPECTED_SWEEP_ERRORS. */
  unexpectedErrors: number;
  /** The run stopped after `maxConsecutiveErrors` unexpected errors in a row. */
  aborted: boolean;
  /** Items that were listed but not visited because the run aborted. */
  notVisited: number;
  checkpointFile: string;
}

function addUnits(sum: Units, units: Units | undefined): void {
  if (!units) return;
  for (const dimension of DIMENSIONS) sum[dimension] += units[dimension];
}

function itemOf(row: BrandSubWorkspaceRow, report: ReleaseReport): SweepItem {
  const base = {
    ...row,
    before: report.before,
    target: report.target,
    after: report.after,
    returned: report.returned,
    requiresDecommission: report.requiresDecommission,
  };
  if (report.outcome !== "error") return { ...base, outcome: report.outcome };
  const errorCode = report.errorCode ?? UNEXPECTED_ERROR;
  return { ...base, outcome: "error", errorCode, expected: EXPECTED_SWEEP_ERRORS.includes(errorCode) };
}

/** A sweep is background work (ADR 0019): it yields the account's upstream budget to requests and jobs. */
export function runSweep(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  return asBackgroundWork(() => sweepAll(deps, options));
}

async function sweepAll(deps: SweepDeps, options: SweepOptions): Promise<SweepReport> {
  const dryRun = options.dryRun ?? false;
  const floor = options.floor ?? SWEEP_DEFAULTS.floor;
  const rateLimitMs = options.rateLimitMs ?? SWEEP_DEFAULTS.rateLimitMs;
  const maxConsecutiveErrors = options.maxConsecutiveErrors ?? SWEEP_DEFAULTS.maxConsecutiveErrors;
  const runId = randomUUID();
  const log = deps.logger.child({ sweepRunId: runId, dryRun });

  const checkpoint: SweepCheckpoint = options.fresh
    ? emptyCheckpoint()
    : await readCheckpoint(options.checkpointFile);
  const done = new Set(checkpoint.done);

  const listed = await listBrandSubWorkspaces(deps.db, {
    orgIds: options.orgIds,
    brandIds: options.brandIds,
  });
  const skipped = { done: 0, failed: 0 };
  const pending = listed.filter((row) => {
    if (done.has(row.brandId)) {
      skipped.done++;
      return false;
    }
    if (checkpoint.failed[row.brandId] !== undefined && !options.retryFailed) {
      skipped.failed++;
      return false;
    }
    return true;
  });
  const work = options.limit === undefined ? pending : pending.slice(0, options.limit);
  options.onStart?.(work.length);
  log.info({ total: work.length, skipped }, "sweep: starting");

  const items: SweepItem[] = [];
  const counts = Object.fromEntries(SWEEP_OUTCOMES.map((outcome) => [outcome, 0])) as Record<
    SweepOutcome,
    number
  >;
  const returnedByPool: Record<string, Units> = {};
  const returnedTotal: Units = { projects: 0, prompts: 0 };
  let unexpectedErrors = 0;
  let streak = 0;
  let aborted = false;

  for (const [index, row] of work.entries()) {
    let item: SweepItem;
    try {
      const report = await deps.allocation.releaseSurplus(
        {
          orgId: row.orgId,
          brandId: row.brandId,
          subWorkspaceId: row.subWorkspaceId,
          requestId: `sweep-${runId}`,
          bearer: options.bearer,
        },
        { floor, dryRun, reason: "sweep", path: "settle" },
      );
      item = itemOf(row, report);
    } catch (error) {
      // releaseSurplus never throws by contract; if it does, that is a bug worth counting.
      log.error({ err: error, brandId: row.brandId }, "sweep: release threw");
      item = {
        ...row,
        outcome: "error",
        errorCode: UNEXPECTED_ERROR,
        expected: false,
        requiresDecommission: [],
      };
    }
    items.push(item);
    counts[item.outcome]++;

    if (item.outcome === "error") {
      if (item.expected) streak = 0;
      else {
        unexpectedErrors++;
        streak++;
      }
    } else {
      streak = 0;
      if (item.outcome !== "deferred") {
        const pool = (returnedByPool[row.parentWorkspaceId] ??= { projects: 0, prompts: 0 });
        addUnits(pool, item.returned);
        addUnits(returnedTotal, item.returned);
      }
    }

    // A dry run changes nothing, so it must not mark anything done for the real run after it.
    if (!dryRun) {
      if (item.outcome === "error") checkpoint.failed[row.brandId] = item.errorCode ?? UNEXPECTED_ERROR;
      else if (item.outcome !== "deferred") {
        delete checkpoint.failed[row.brandId];
        if (!done.has(row.brandId)) {
          done.add(row.brandId);
          checkpoint.done.push(row.brandId);
        }
      }
      await writeCheckpoint(options.checkpointFile, checkpoint);
    }

    options.onItem?.(item, {
      index: index + 1,
      total: work.length,
      returned: { ...returnedTotal },
      errors: counts.error,
    });
    if (streak >= maxConsecutiveErrors) {
      aborted = true;
      log.error({ streak }, "sweep: aborted after consecutive unexpected errors");
      break;
    }
    if (index < work.length - 1 && rateLimitMs > 0) await deps.clock.sleep(rateLimitMs);
  }

  log.info({ counts, unexpectedErrors, aborted }, "sweep: finished");
  return {
    dryRun,
    items,
    counts,
    returnedByPool,
    skipped,
    unexpectedErrors,
    aborted,
    notVisited: work.length - items.length,
    checkpointFile: options.checkpointFile,
  };
}
