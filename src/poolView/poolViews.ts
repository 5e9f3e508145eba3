import { boundedMap } from "../concurrency/boundedMap.ts";
import { dynamicAllocationEnabled } from "../config/flags.ts";
import type { BrandRow } from "../db/brands/brandRow.ts";
import { listBrands } from "../db/brands/listBrands.ts";
import type { OrgRow } from "../db/orgs/orgRow.ts";
import { claimStaleObservations } from "../db/resourceObservations/claimStaleObservations.ts";
import { listOrgObservations } from "../db/resourceObservations/listOrgObservations.ts";
import { holdsResources, type ResourceObservation } from "../db/resourceObservations/observationRow.ts";
import { releaseRefreshClaim } from "../db/resourceObservations/releaseRefreshClaim.ts";
import {
  composePoolView,
  pooledBrands,
  type PoolReadFailure,
  type PoolView,
  poolViewMaxAgeMs,
} from "./poolView.ts";
import {
  type PoolReadDeps,
  type PoolReadPriority,
  readParentAndFamily,
  readSubWorkspace,
} from "./poolViewReads.ts";

/** Reads in flight at once while a first view fills entries the record has never seen. */
export const POOL_VIEW_CONCURRENCY = 4;

/** How the background refresh spreads its reads: at most `concurrency` at once, `spacingMs` apart. */
export interface PoolRefreshPacing {
  concurrency: number;
  spacingMs: number;
}

/**
 * Two reads at once, a quarter second apart: at most 4 reads per second per org and process, well
 * inside an account's 10 per second (spec/gateway.md §7), so a refresh never crowds out the
 * requests of the people using the account. Across processes the shared upstream budget's
 * background class bounds it (src/budget); this bound is one pass's own.
 */
export const DEFAULT_POOL_REFRESH_PACING: PoolRefreshPacing = { concurrency: 2, spacingMs: 250 };
/** A claimed entry whose refresh never recorded (the process died, the read failed) is free again after this. */
export const POOL_REFRESH_CLAIM_MS = 60_000;
/** Entries claimed per round of a refresh pass (it claims again until none is stale). */
const CLAIM_BATCH = 8;

interface OrgState {
  brands: BrandRow[];
  observations: ResourceObservation[];
}

interface Fill {
  bearer: string;
  done: Promise<Map<string, PoolReadFailure>>;
}

/**
 * The pool view from the resources record (spec/allocation.md §8, §12; ADR 0020).
 *
 * - A view is two database reads (the org's brands, its entries): no upstream call while every
 *   entry is younger than SERENITY_POOL_VIEW_MAX_AGE_MS.
 * - Entries past it are still served at once, with their old `asOf`, and refreshed in the
 *   background — stalest first, claimed in the database so several processes do not read one
 *   entry twice, paced (DEFAULT_POOL_REFRESH_PACING), one pass per org per process at a time.
 * - Only a workspace the record has never seen makes a view wait for a read (a first view of an
 *   org, a brand just provisioned): at most POOL_VIEW_CONCURRENCY at once. Views asked for meanwhile
 *   join that fill; its failure is shared only with callers of the same bearer (another member's
 *   token may read what this one could not), the others look again.
 */
export class PoolViews {
  readonly #fills = new Map<string, Fill>();
  /**
   * How many fills of each org have ended in this process. A view that loaded the record before a
   * fill ended may have read it without that fill's entries: it loads again rather than start a
   * fill of its own for what was just read (views that waited on a failed fill re-read once,
   * together, however slowly each one's load answers).
   */
  readonly #fillsEnded = new Map<string, number>();
  readonly #refreshes = new Map<string, Promise<void>>();
  readonly #pacing: PoolRefreshPacing;
  /** When each org's pass may start its next read (the pacing). */
  readonly #nextStart = new Map<string, number>();

  constructor(
    private readonly deps: PoolReadDeps,
    pacing: Partial<PoolRefreshPacing> = {},
  ) {
    this.#pacing = { ...DEFAULT_POOL_REFRESH_PACING, ...pacing };
  }

  /** The view for a caller who passed the tenancy check: from the record, filling what it lacks. */
  async view(org: OrgRow, bearer: string): Promise<PoolView> {
    const failures = new Map<string, PoolReadFailure>();
    const attempted = new Set<string>();
    let upstreamReads = 0;
    for (;;) {
      const endedBefore = this.#fillsEnded.get(org.id) ?? 0;
      const state = await this.#load(org);
      const missing = this.#missing(org, state).filter((id) => !attempted.has(id));
      if (missing.length === 0) {
        const view = this.#compose(org, state, failures);
        this.#refreshIfStale(org, bearer, state, upstreamReads);
        return view;
      }
      const inFlight = this.#fills.get(org.id);
      if (!inFlight && (this.#fillsEnded.get(org.id) ?? 0) !== endedBefore) continue;
      if (inFlight) {
        let result: Map<string, PoolReadFailure>;
        this.deps.events.emit("allocation.poolViewJoinedFill", {
          orgId: org.id,
          sameBearer: inFlight.bearer === bearer,
        });
        try {
          result = await inFlight.done;
        } catch (error) {
          if (inFlight.bearer === bearer) throw error;
          continue;
        }
        if (inFlight.bearer === bearer) {
          for (const [id, failure] of result) failures.set(id, failure);
          for (const id of missing) attempted.add(id);
        }
        continue;
      }
      for (const id of missing) attempted.add(id);
      upstreamReads += missing.length;
      for (const [id, failure] of await this.#fill(org, bearer, state, missing, "interactive")) {
        failures.set(id, failure);
      }
    }
  }

  /**
   * The sampler's and the audit's read (no tenancy check; they act for the org): `stale` refreshes
   * what is past the max age (the sampler: entries kept fresh by views and writes cost nothing),
   * `all` re-reads every entry (the audit wants the upstream as it is now). Fills what the record
   * lacks, then answers the view from the record.
   */
  async sample(org: OrgRow, bearer: string, refresh: "stale" | "all"): Promise<PoolView> {
    let state = await this.#load(org);
    let failures = new Map<string, PoolReadFailure>();
    if (refresh === "all") {
      failures = await this.#fill(org, bearer, state, this.#wanted(org, state), "background");
    } else {
      // The pool's own read failing fails the sample (the sampler reports the org failed).
      const { parentError } = await this.#refreshStale(org, bearer);
      if (parentError) throw parentError;
      state = await this.#load(org);
      const missing = this.#missing(org, state);
      if (missing.length > 0) failures = await this.#fill(org, bearer, state, missing, "background");
    }
    state = await this.#load(org);
    return this.#compose(org, state, failures);
  }

  /** Resolves once every background refresh running in this process has ended (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#refreshes.size > 0) await Promise.allSettled([...this.#refreshes.values()]);
  }

  async #load(org: OrgRow): Promise<OrgState> {
    const [brands, observations] = await Promise.all([
      listBrands(this.deps.db, org.id),
      listOrgObservations(this.deps.db, org.id),
    ]);
    return { brands, observations };
  }

  /** The parent, every brand sub-workspace and every unattached entry, as workspace ids. */
  #wanted(org: OrgRow, state: OrgState): string[] {
    const ids = new Set<string>();
    if (org.parentWorkspaceId) ids.add(org.parentWorkspaceId);
    for (const brand of pooledBrands(state.brands)) ids.add(brand.subWorkspaceId);
    for (const entry of state.observations) ids.add(entry.workspaceId);
    return [...ids];
  }

  #missing(org: OrgRow, state: OrgState): string[] {
    // The parent's metering alone (no resources read yet) is not an entry a view can show.
    const known = new Set(state.observations.filter(holdsResources).map((entry) => entry.workspaceId));
    return this.#wanted(org, state).filter((id) => !known.has(id));
  }

  #compose(org: OrgRow, state: OrgState, failures: ReadonlyMap<string, PoolReadFailure>): PoolView {
    return composePoolView({
      org,
      brands: state.brands,
      observations: state.observations,
      failures,
      dynamicAllocation: dynamicAllocationEnabled(this.deps.env),
      now: this.deps.clock.now(),
    });
  }

  /** Reads `ids` now (the parent with its family), bounded; answers the reads that failed. */
  #fill(
    org: OrgRow,
    bearer: string,
    state: OrgState,
    ids: readonly string[],
    priority: PoolReadPriority,
  ): Promise<Map<string, PoolReadFailure>> {
    const done = (async () => {
      const failures = new Map<string, PoolReadFailure>();
      const pointed = new Set(pooledBrands(state.brands).map((brand) => brand.subWorkspaceId));
      const known = new Set([...state.observations.map((entry) => entry.workspaceId), ...ids]);
      const subs = ids.filter((id) => id !== org.parentWorkspaceId);
      const readSubs = async (list: readonly { id: string; title?: string }[]) => {
        const results = await boundedMap(list, POOL_VIEW_CONCURRENCY, ({ id, title }) =>
          readSubWorkspace(this.deps, org, bearer, id, priority, title),
        );
        results.forEach((failure, index) => failure && failures.set(list[index]!.id, failure));
      };
      const parent =
        org.parentWorkspaceId && ids.includes(org.parentWorkspaceId)
          ? readParentAndFamily(this.deps, org, bearer, { pointed, known, priority })
          : Promise.resolve([]);
      const [children] = await Promise.all([parent, readSubs(subs.map((id) => ({ id })))]);
      await readSubs(children.map((child) => ({ id: child.id, title: child.title })));
      return failures;
    })();
    const fill = { bearer, done };
    this.#fills.set(org.id, fill);
    return done.finally(() => {
      if (this.#fills.get(org.id) === fill) this.#fills.delete(org.id);
      this.#fillsEnded.set(org.id, (this.#fillsEnded.get(org.id) ?? 0) + 1);
    });
  }

  /** Starts a background pass when an entry is past the max age (never awaited by the view). */
  #refreshIfStale(org: OrgRow, bearer: string, state: OrgState, upstreamReads: number): void {
    const now = this.deps.clock.now().getTime();
    const staleBefore = now - poolViewMaxAgeMs(this.deps.env);
    let oldest = now;
    let stale = 0;
    for (const entry of state.observations.filter(holdsResources)) {
      const at = entry.observedAt.getTime();
      oldest = Math.min(oldest, at);
      if (at < staleBefore) stale += 1;
    }
    this.deps.events.emit("allocation.poolViewServed", {
      oldestAgeSeconds: Math.max(0, now - oldest) / 1000,
      staleEntries: stale,
      upstreamReads,
    });
    if (stale === 0 || this.#refreshes.has(org.id)) return;
    const pass = this.#refreshStale(org, bearer)
      .then(() => undefined)
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, orgId: org.id }, "allocation: pool view refresh failed"),
      )
      .finally(() => this.#refreshes.delete(org.id));
    this.#refreshes.set(org.id, pass);
  }

  /**
   * One refresh pass: claims the org's stale entries a few at a time, stalest first, and re-reads
   * them paced, until none is left unclaimed. Each read records itself (and clears its claim); a
   * failed one gives its claim back and is not tried again by the same pass, so a pass never loops
   * on it. A claim a dead process left ends by itself after POOL_REFRESH_CLAIM_MS. Cost: one read
   * per stale entry, plus the family read with the parent's (ADR 0020).
   */
  async #refreshStale(org: OrgRow, bearer: string): Promise<{ parentError?: unknown }> {
    try {
      return await this.#refreshRounds(org, bearer);
    } finally {
      this.#nextStart.delete(org.id);
    }
  }

  async #refreshRounds(org: OrgRow, bearer: string): Promise<{ parentError?: unknown }> {
    const result: { parentError?: unknown } = {};
    /** Entries this pass read already: one that failed is not tried twice by one pass. */
    const tried = new Set<string>();
    for (;;) {
      const state = await this.#load(org);
      const now = this.deps.clock.now();
      const claimUntil = new Date(now.getTime() + POOL_REFRESH_CLAIM_MS);
      const claimed = await claimStaleObservations(this.deps.db, {
        orgId: org.id,
        workspaceIds: this.#wanted(org, state).filter((id) => !tried.has(id)),
        staleBefore: new Date(now.getTime() - poolViewMaxAgeMs(this.deps.env)),
        now,
        claimUntil,
        limit: CLAIM_BATCH,
      });
      for (const id of claimed) tried.add(id);
      if (claimed.length === 0) return result;
      const pointed = new Set(pooledBrands(state.brands).map((brand) => brand.subWorkspaceId));
      const known = new Set(state.observations.map((entry) => entry.workspaceId));
      await boundedMap(claimed, this.#pacing.concurrency, async (id) => {
        await this.#paced(org.id);
        let outcome: "refreshed" | "failed" = "refreshed";
        if (id === org.parentWorkspaceId) {
          try {
            const children = await readParentAndFamily(this.deps, org, bearer, {
              pointed,
              known,
              priority: "background",
            });
            for (const child of children) {
              await this.#paced(org.id);
              await readSubWorkspace(this.deps, org, bearer, child.id, "background", child.title);
            }
          } catch (error) {
            result.parentError = error;
            outcome = "failed";
          }
        } else if (await readSubWorkspace(this.deps, org, bearer, id, "background")) {
          outcome = "failed";
        }
        if (outcome === "failed") {
          // Another bearer may read what this one could not: the next view may claim it at once.
          await releaseRefreshClaim(this.deps.db, {
            orgId: org.id,
            workspaceId: id,
            claimedUntil: claimUntil,
          });
        }
        this.deps.events.emit("allocation.poolViewRefresh", { outcome });
      });
    }
  }

  /** Waits until this org's pass may start its next read (reads `spacingMs` apart). */
  async #paced(orgId: string): Promise<void> {
    if (this.#pacing.spacingMs <= 0) return;
    const now = this.deps.clock.now().getTime();
    const start = Math.max(now, this.#nextStart.get(orgId) ?? 0);
    this.#nextStart.set(orgId, start + this.#pacing.spacingMs);
    if (start > now) await this.deps.clock.sleep(start - now);
  }
}
