import { findClaimedWorkspaces } from "../db/brands/findClaimedWorkspaces.ts";
import type { DbExecutor } from "../db/database.ts";
import type { Clock } from "../domain/clock.ts";
import { ServiceError } from "../domain/errors.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import type { GatewayCallOptions } from "../gateway/transport.ts";
import type { Workspace } from "../gateway/types.ts";
import { isReadyStatus, isTerminalStatus } from "../gateway/workspaceStatus.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * The sub-workspace lifecycle (spec/gateway.md §4, spec/provisioning.md §5 and §7): create or
 * adopt a brand's workspace, wait for it to settle, empty it. Both the synchronous endpoints and
 * the provisioning job use it; it never writes the brand's pointer (callers do, guarded) and never
 * deletes a workspace. Gateway failures other than the ones it interprets propagate as
 * `GatewayError`s, for the caller to map at its edge.
 */

export interface WorkspaceLifecycleDeps {
  db: DbExecutor;
  clock: Clock;
  gateway: Pick<GatewayClient, "users" | "projects">;
  logger: Logger;
  /** Between status reads of a synchronous settle; default 250 ms. */
  pollIntervalMs?: number;
  /**
   * Cancels every gateway call and wait of this lifecycle (a job passes its abort signal, so a hop
   * past its timeout stops talking upstream); an aborted call rejects with the signal's reason.
   */
  signal?: AbortSignal;
}

export interface WorkspaceHandle {
  workspaceId: string;
  /**
   * True when this call created the workspace (or adopted the one its own timed-out create left
   * behind): cleanup may empty it. False for a workspace adopted as it was: never touch it.
   */
  freshlyCreated: boolean;
}

/** One status observation, classified. */
export type SettleState = "ready" | "terminal" | "notReady";

export const DEFAULT_SETTLE_POLL_INTERVAL_MS = 250;
/** Family reads after a create timed out, in case the new workspace shows up a little late. */
const RECOVERY_FAMILY_READS = 3;
const PROJECT_PAGE_SIZE = 100;

export class WorkspaceLifecycle {
  readonly #pollIntervalMs: number;
  /** The trailing options of every gateway call: the cancellation, when there is one. */
  readonly #call: GatewayCallOptions;

  constructor(private readonly deps: WorkspaceLifecycleDeps) {
    this.#pollIntervalMs = deps.pollIntervalMs ?? DEFAULT_SETTLE_POLL_INTERVAL_MS;
    this.#call = deps.signal ? { signal: deps.signal } : {};
  }

  /**
   * The brand's workspace under `parentWorkspaceId`, titled `title`:
   * 1. adopt a same-title workspace from the parent's family that is ready, has no AI project and
   *    is claimed by no other brand (several → `ambiguousWorkspace`);
   * 2. else create one;
   * 3. when the create fails with `unavailable` (a 504 or a lost answer: it may have committed),
   *    read the family again. A matching workspace that was not there before is the one our create
   *    made: adopted as our own (`freshlyCreated`), even while still `not ready` — the caller
   *    settles it like a fresh create instead of failing and leaving an orphan behind. Otherwise
   *    the usual ready-only adoption applies; nothing at all → one more create (the failed one
   *    made nothing), and after a second failure with nothing found, its error is rethrown.
   */
  async createOrAdopt(
    bearer: string,
    parentWorkspaceId: string,
    title: string,
    brandId: string,
  ): Promise<WorkspaceHandle> {
    const log = this.deps.logger.child({ brandId });
    const before = await this.deps.gateway.users.getFamily(bearer, parentWorkspaceId, this.#call);
    const existing = await this.#adoptable(bearer, before, parentWorkspaceId, title, brandId, {
      allowSettling: false,
    });
    const adopted = this.#single(existing, log);
    if (adopted) {
      log.info({ workspaceId: adopted.id }, "adopted an existing sub-workspace by title");
      return { workspaceId: adopted.id, freshlyCreated: false };
    }

    // Two creates at most: a create that failed without leaving anything behind (a 500 before the
    // upstream committed, a dropped connection) is sent once more.
    for (let attempt = 1; ; attempt++) {
      try {
        const created = await this.deps.gateway.users.createSubWorkspace(
          bearer,
          parentWorkspaceId,
          { title },
          this.#call,
        );
        log.info({ workspaceId: created.id, attempt }, "created a sub-workspace");
        return { workspaceId: created.id, freshlyCreated: true };
      } catch (error) {
        if (!isGatewayError(error, "unavailable")) throw error;
        log.warn(
          { ...error.toLog(), attempt },
          "sub-workspace create failed or timed out; looking for it by title",
        );
        const recovered = await this.#recoverAfterTimeout(bearer, before, parentWorkspaceId, title, brandId);
        if (recovered) {
          log.info({ ...recovered }, "adopted after a timed-out create");
          return recovered;
        }
        if (attempt >= 2) throw error;
      }
    }
  }

  /**
   * Polls the workspace's status until it is ready, within `budgetMs` of the injected clock:
   * terminal → `subworkspaceCreationFailed` at once; budget spent → `subworkspaceCreationTimeout`
   * (the workspace is left as it is, adoptable by title once it settles). A transient failure of a
   * status read counts as not ready.
   */
  async settleSync(bearer: string, workspaceId: string, budgetMs: number): Promise<void> {
    const { clock } = this.deps;
    const deadline = clock.now().getTime() + budgetMs;
    for (;;) {
      const state = await this.readState(bearer, workspaceId);
      if (state === "ready") return;
      if (state === "terminal") {
        throw new ServiceError("subworkspaceCreationFailed", { details: { workspaceId } });
      }
      const remaining = deadline - clock.now().getTime();
      if (remaining <= 0) {
        throw new ServiceError("subworkspaceCreationTimeout", { details: { workspaceId, budgetMs } });
      }
      await clock.sleep(Math.min(this.#pollIntervalMs, remaining), this.deps.signal);
    }
  }

  /**
   * One status read, classified (the provisioning job reads once per hop). Transient failures
   * (429, 5xx, timeout, "not ready") read as `notReady`; anything else propagates.
   */
  async readState(bearer: string, workspaceId: string): Promise<SettleState> {
    try {
      const status = await this.deps.gateway.users.getStatus(bearer, workspaceId, this.#call);
      if (isReadyStatus(status)) return "ready";
      if (isTerminalStatus(status)) return "terminal";
      return "notReady";
    } catch (error) {
      if (isGatewayError(error) && error.transient) return "notReady";
      throw error;
    }
  }

  /**
   * Deletes every AI project of the workspace (an already-deleted one counts as done) and returns
   * how many went. Any other failure propagates: deactivate must not report success while a live
   * project remains. Never deletes the workspace itself.
   */
  async deleteAllProjects(bearer: string, workspaceId: string): Promise<number> {
    let deleted = 0;
    for (const projectId of await this.#projectIds(bearer, workspaceId)) {
      try {
        await this.deps.gateway.projects.deleteProject(bearer, workspaceId, projectId, this.#call);
        deleted += 1;
      } catch (error) {
        if (!isGatewayError(error, "gone")) throw error;
      }
    }
    return deleted;
  }

  /**
   * Cleanup of a workspace an attempt created itself: best effort, never throws (failures are
   * logged), never deletes the workspace. Returns whether it ended up empty as far as we know.
   */
  async emptyWorkspace(bearer: string, workspaceId: string): Promise<boolean> {
    try {
      await this.deleteAllProjects(bearer, workspaceId);
      return true;
    } catch (error) {
      this.deps.logger.warn(
        { workspaceId, ...(isGatewayError(error) ? error.toLog() : { error: String(error) }) },
        "could not empty a sub-workspace; it is left for adoption or the operator",
      );
      return false;
    }
  }

  async #recoverAfterTimeout(
    bearer: string,
    before: Workspace[],
    parentWorkspaceId: string,
    title: string,
    brandId: string,
  ): Promise<WorkspaceHandle | undefined> {
    const seen = new Set(before.map((workspace) => workspace.id));
    for (let read = 1; read <= RECOVERY_FAMILY_READS; read++) {
      const family = await this.deps.gateway.users.getFamily(bearer, parentWorkspaceId, this.#call);
      const matches = await this.#adoptable(bearer, family, parentWorkspaceId, title, brandId, {
        allowSettling: true,
      });
      const fresh = matches.filter((workspace) => !seen.has(workspace.id));
      const ours = this.#single(fresh, this.deps.logger);
      if (ours) return { workspaceId: ours.id, freshlyCreated: true };
      const ready = this.#single(
        matches.filter((workspace) => isReadyStatus(workspace.status)),
        this.deps.logger,
      );
      if (ready) return { workspaceId: ready.id, freshlyCreated: false };
      if (read < RECOVERY_FAMILY_READS) await this.deps.clock.sleep(this.#pollIntervalMs, this.deps.signal);
    }
    return undefined;
  }

  /**
   * Family entries a brand may take: direct children of the parent with exactly `title`, ready
   * (or, with `allowSettling`, not yet ready but not failed), claimed by no other brand (pointer or
   * live candidate) and without any AI project. The cheap filters run first; the project check
   * costs one upstream read per remaining candidate.
   */
  async #adoptable(
    bearer: string,
    family: Workspace[],
    parentWorkspaceId: string,
    title: string,
    brandId: string,
    options: { allowSettling: boolean },
  ): Promise<Workspace[]> {
    const titled = family.filter(
      (workspace) =>
        workspace.id !== parentWorkspaceId &&
        workspace.parentId === parentWorkspaceId &&
        workspace.title === title &&
        (isReadyStatus(workspace.status) || (options.allowSettling && !isTerminalStatus(workspace.status))),
    );
    if (titled.length === 0) return [];
    const claimed = await findClaimedWorkspaces(this.deps.db, {
      workspaceIds: titled.map((workspace) => workspace.id),
      exceptBrandId: brandId,
    });
    const unclaimed = titled.filter((workspace) => !claimed.has(workspace.id));
    const empty: Workspace[] = [];
    for (const workspace of unclaimed) {
      const projects = await this.deps.gateway.projects.listProjects(
        bearer,
        workspace.id,
        { limit: 1 },
        this.#call,
      );
      if (projects.total === 0 && projects.items.length === 0) empty.push(workspace);
    }
    return empty;
  }

  /** The one match, nothing for none, `ambiguousWorkspace` for several. */
  #single(matches: Workspace[], log: Logger): Workspace | undefined {
    if (matches.length > 1) {
      log.warn(
        { workspaceIds: matches.map((workspace) => workspace.id) },
        "several workspaces match for adoption",
      );
      throw new ServiceError("ambiguousWorkspace", { details: { matches: matches.length } });
    }
    return matches[0];
  }

  async #projectIds(bearer: string, workspaceId: string): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const result = await this.deps.gateway.projects.listProjects(
        bearer,
        workspaceId,
        { page, limit: PROJECT_PAGE_SIZE },
        this.#call,
      );
      ids.push(...result.items.map((project) => project.id));
      if (result.items.length < PROJECT_PAGE_SIZE || ids.length >= result.total) return ids;
    }
  }
}
