import type { BrandRow } from "../db/brands/brandRow.ts";
import { findClaimedWorkspaces } from "../db/brands/findClaimedWorkspaces.ts";
import { recordProvisioningCandidate } from "../db/brands/recordProvisioningCandidate.ts";
import type { Db } from "../db/database.ts";
import { ServiceError } from "../domain/errors.ts";
import type { JobContext } from "../jobs/handler.ts";
import type { Logger } from "../observability/logger.ts";
import type { DeliveryFence } from "./deliveryFence.ts";
import type { ProvisionWorkspaceMetadata } from "./provisioningJobTypes.ts";
import type { WorkspaceLifecycle } from "./workspaceLifecycle.ts";

export interface OwnedCandidateDeps {
  db: Db;
  lifecycle: WorkspaceLifecycle;
  log: Logger;
  fence: DeliveryFence;
  /** The user's upstream token (the hop's credential). */
  token(): Promise<string>;
}

/**
 * The candidate an attempt created itself — the only workspace its cleanup may ever empty — and
 * that cleanup (spec/provisioning.md §5): its projects deleted, best effort, never the workspace.
 * An adopted candidate, or one whose provenance is unknown, is never owned.
 */
export class OwnedCandidate {
  #workspaceId: string | undefined;

  constructor(
    private readonly deps: OwnedCandidateDeps,
    workspaceId?: string,
  ) {
    this.#workspaceId = workspaceId;
  }

  own(workspaceId: string): void {
    this.#workspaceId = workspaceId;
  }

  /** The workspace turned out to be someone else's: never touch it. */
  disown(): void {
    this.#workspaceId = undefined;
  }

  /**
   * Empties the candidate unless it is claimed by now — by any brand, this one included: after a
   * cancel, a newer attempt of the same brand may have adopted the very workspace (it is titled
   * with the brand name) and promoted it — or this delivery lost its lease. Never throws.
   */
  async cleanUp(): Promise<void> {
    const workspaceId = this.#workspaceId;
    if (!workspaceId) return;
    const { log } = this.deps;
    if (await this.#claimedNow(workspaceId)) {
      log.info({ workspaceId }, "the owned candidate is claimed by now; left as it is");
      this.#workspaceId = undefined;
      return;
    }
    if (!(await this.deps.fence.holds())) {
      // A newer delivery of this hop owns the attempt's work now, this candidate included.
      log.info({ workspaceId }, "the hop's lease is gone; cleanup left to the delivery holding it");
      return;
    }
    let bearer: string;
    try {
      bearer = await this.deps.token();
    } catch {
      log.warn({ workspaceId }, "no credential to empty an owned candidate; left for adoption");
      return;
    }
    const emptied = await this.deps.lifecycle.emptyWorkspace(bearer, workspaceId);
    log.info({ workspaceId, emptied }, "cleaned up an owned candidate");
    this.#workspaceId = undefined;
  }

  /** Whether any brand points at the workspace or waits on it as a live candidate; unsure → yes. */
  async #claimedNow(workspaceId: string): Promise<boolean> {
    try {
      const claimed = await findClaimedWorkspaces(this.deps.db, {
        workspaceIds: [workspaceId],
        exceptBrandId: null,
      });
      return claimed.has(workspaceId);
    } catch (error) {
      this.deps.log.warn({ err: error, workspaceId }, "could not read workspace claims; cleanup skipped");
      return true;
    }
  }
}

/**
 * Step 3 of a hop (spec/provisioning.md §5): the workspace this attempt waits for — the one the
 * metadata carries; else one a previous delivery of this hop recorded (T2) before dying
 * (provenance unknown, so never owned); else the brand's canonical pointer (the fast path of
 * createMarket/activate, not owned); else one created or adopted now (owned when created). Then
 * T2, unless the row already holds it. `undefined` = another delivery recorded a candidate first.
 */
export async function chooseCandidate(
  deps: Omit<OwnedCandidateDeps, "fence"> & { owned: OwnedCandidate },
  ctx: Pick<JobContext<ProvisionWorkspaceMetadata>, "metadata" | "saveCheckpoint" | "clock">,
  brand: BrandRow,
): Promise<string | undefined> {
  const metadata = ctx.metadata;
  let candidate = metadata.candidateWorkspaceId;
  if (!candidate) {
    let freshlyCreated = false;
    if (brand.provisioningCandidateWorkspaceId) {
      candidate = brand.provisioningCandidateWorkspaceId;
      deps.log.info({ workspaceId: candidate }, "resuming with the candidate an earlier delivery recorded");
    } else if (brand.subWorkspaceId) {
      candidate = brand.subWorkspaceId;
    } else {
      if (!metadata.parentWorkspaceId) throw new ServiceError("configurationError");
      const handle = await deps.lifecycle.createOrAdopt(
        await deps.token(),
        metadata.parentWorkspaceId,
        metadata.title,
        metadata.brandId,
      );
      candidate = handle.workspaceId;
      freshlyCreated = handle.freshlyCreated;
      if (freshlyCreated) deps.owned.own(candidate);
    }
    // Checkpoint before T2: a redelivery after a crash here knows what it created.
    await ctx.saveCheckpoint({
      candidateWorkspaceId: candidate,
      freshlyCreated,
      createdAtMs: ctx.clock.now().getTime(),
    });
  }
  if (brand.provisioningCandidateWorkspaceId === candidate) return candidate;
  if (brand.provisioningCandidateWorkspaceId === null) {
    const recorded = await recordProvisioningCandidate(deps.db, {
      brandId: metadata.brandId,
      attemptId: metadata.attemptId,
      candidateWorkspaceId: candidate,
      now: ctx.clock.databaseTime?.(),
    });
    if (recorded) return candidate;
  }
  deps.log.info({ workspaceId: candidate }, "another delivery recorded the candidate first; standing down");
  return undefined;
}
