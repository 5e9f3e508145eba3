import { EventEmitter } from "node:events";

import type { EndpointGroup } from "../domain/endpointGroup.ts";

/**
 * Services emit typed events; metrics and logs subscribe (SPEC §3: domain code makes no metrics
 * calls). Add an entry here for each new event; payloads carry ids and numbers, never secrets.
 */
export interface ServiceEvents {
  /** A delivery reached a record: how long its message waited after becoming deliverable. */
  "job.delivered": { type: string; lagSeconds: number };
  /** How one delivery ended (spec/operations.md §3 `serenity_jobs_total` outcomes). */
  "job.finished": {
    type: string;
    outcome:
      "completed" | "failed" | "retried" | "requeued" | "dropped_duplicate" | "lease_lost" | "unknown_type";
    code?: string;
    durationSeconds?: number;
  };
  /** A reconciler run: stalled records found per type, and what it did. */
  "job.reconciled": {
    stuck: Record<string, number>;
    redelivered: number;
    failed: number;
    purged: number;
  };
  /**
   * A provisioning attempt reached an outcome (spec/operations.md §3): promoted `ready`, `failed`
   * by its worker or producer, `superseded` by a newer attempt or another brand, `cancelled` by a
   * deactivate, or failed as `stale` (reconciler or concurrency guard).
   */
  "provisioning.attempt": { outcome: "ready" | "failed" | "superseded" | "cancelled" | "stale" };
  /**
   * A connection was asked of the pool from inside an open transaction (src/db/transactionScope.ts):
   * refused (`throw`) or let through (`warn`). Each one is a latent pool deadlock.
   */
  "db.nestedAcquire": { refused: boolean };
  /**
   * A background pass (the pool sampler's, the upstream reconciler's) took longer than its period:
   * it no longer fits, and the loop ran it late (ticks that found it running were skipped).
   */
  "background.passOverrun": {
    pass: "poolSampler" | "upstreamReconciler";
    durationSeconds: number;
    budgetSeconds: number;
  };
  "http.request": { method: string; route: string; status: number; durationSeconds: number };
  /** A route answered an error code its OpenAPI declaration does not list (the list fell behind). */
  "http.undeclaredErrorCode": { method: string; route: string; status: number; code: string };
  "gateway.request": {
    gateway: "um" | "pe";
    /** Semrush's endpoint group of the call (spec/gateway.md §7). */
    group: EndpointGroup;
    method: string;
    route: string;
    status: number;
    durationSeconds: number;
  };
  "gateway.quotaClassification": { matched: boolean };
  /**
   * The API process's periodic look at the upstream (src/runtime/upstreamHealth.ts): whether the
   * gateway answered. A metric, never a readiness gate: an upstream outage must not take the API
   * out of rotation (it still answers its cached reads and its 503s).
   */
  "gateway.health": { reachable: boolean };
  /** One wait for an upstream budget slot (docs/decisions/0019): granted, or the deadline came first. */
  "upstream.budgetWait": {
    group: EndpointGroup;
    priority: "interactive" | "job" | "background";
    outcome: "granted" | "exhausted";
    seconds: number;
  };
  /** The upstream answered 429 although the budget let the call go (another client of the account). */
  "upstream.throttled": { group: EndpointGroup };
  /** A call gave up for lack of budget or after 429s until its deadline: its caller answers upstreamBusy. */
  "upstream.busy": {
    group: EndpointGroup;
    priority: "interactive" | "job" | "background";
  };
  /** The effective (adaptive) slot count of an (account, group) seen on the last slot taken or lowered. */
  "upstream.adaptiveLimit": { group: EndpointGroup; slots: number };
  /** A guard's `ensure` finished without error: hot path (no transfer) or a top-up. */
  "allocation.headroomCheck": { orgId: string; outcome: "hot_path" | "topped_up" };
  /** A successful top-up transfer and how long the read-plan-transfer took. */
  "allocation.topUp": { orgId: string; path: "fail_fast" | "settle"; durationSeconds: number };
  "allocation.rejection": {
    orgId: string;
    reason: "orgPoolExhausted" | "brandAiLimit" | "workspaceBusy" | "quotaExceeded";
  };
  /**
   * Near exhaustion (spec/allocation.md §11): after the pool refused a block-rounded top-up, the
   * exact retry (`exact`) or the retry after rebalancing (`rebalance`) served the write or not.
   */
  "allocation.nearExhaustion": { orgId: string; step: "exact" | "rebalance"; outcome: "served" | "refused" };
  /** A top-up attempt not sent: the pool was known not to cover it (docs/decisions/0033). */
  "allocation.topUpNotSent": { orgId: string; step: "topUp" | "exact" };
  /**
   * One sibling a rebalance considered: `lowered` (its slack moved to the pool), `notNeeded` (read,
   * but others covered the need or it had no slack), or skipped: `busy` (its lock was not free in
   * the short wait), `publishLag` (published too recently for its usage to be trusted), `failed`
   * (its read or transfer failed, e.g. not ready).
   */
  "allocation.rebalanceSibling": {
    orgId: string;
    outcome: "lowered" | "notNeeded" | "busy" | "publishLag" | "failed";
    reclaimed: { projects: number; prompts: number };
  };
  /** A settle-path transfer answered "workspace not ready" and will be retried. */
  "allocation.notReadyRetry": { orgId: string };
  "allocation.release": {
    orgId: string;
    outcome: "released" | "nothingToRelease" | "requiresDecommission" | "dryRun" | "deferred" | "error";
  };
  "allocation.quotaRetry": { callSite: string; outcome: "recovered" | "exhausted" | "abandoned" };
  "allocation.lockWait": { waitSeconds: number; acquired: boolean };
  /**
   * One read of an org's parent metering (spec/allocation.md §13), why it was made (`sampler`: the
   * pool sampler's pass; `orgCreated` / `parentChanged`; `unknown`: a guarded write found it unknown;
   * `quotaRejection`: the 405 safety net) and what it found (`failed`: the read or its answer failed).
   */
  "allocation.meteringRead": {
    orgId: string;
    reason: "sampler" | "orgCreated" | "parentChanged" | "unknown" | "quotaRejection";
    outcome: "metered" | "unmetered" | "unknown" | "failed";
  };
  /** An org's recorded metering changed between the two known states (never from or to unknown). */
  "allocation.meteringFlip": {
    orgId: string;
    from: "metered" | "unmetered";
    to: "metered" | "unmetered";
    reason: "sampler" | "orgCreated" | "parentChanged" | "unknown" | "quotaRejection";
  };
  /** A wait for a brand's lease (docs/decisions/0015): how long, and whether it was had. */
  "brand.leaseWait": { waitSeconds: number; acquired: boolean };
  /**
   * A failed market create whose rollback could not delete its project (upstream down): the
   * reservation is kept (`kept`) so the delete is retried (docs/decisions/0015).
   */
  "market.rollbackPending": { kept: boolean };
  /**
   * One write to the resources record (ADR 0020): what it came from (`read`: any resources read;
   * `transfer`: an applied transfer's answer; `staged`: units a metered write staged) and whether it
   * was `recorded`, lost to a newer observation (`older`, a lost race, not an error) or `failed`
   * (the database write failed; the operation itself went on).
   */
  "allocation.recordWrite": {
    source: "read" | "transfer" | "section";
    outcome: "recorded" | "older" | "failed";
  };
  /**
   * One pool view answered from the record: the age of its oldest entry, how many entries were past
   * SERENITY_POOL_VIEW_MAX_AGE_MS (left to the background refresh) and how many upstream reads the
   * view itself waited for (entries never seen before; 0 once the org is known).
   */
  "allocation.poolViewServed": { oldestAgeSeconds: number; staleEntries: number; upstreamReads: number };
  /**
   * A pool view that found another caller's fill of its org in flight and waits on it rather than
   * read itself (`sameBearer`: the fill reads with this caller's bearer, so its failures are shared).
   */
  "allocation.poolViewJoinedFill": { orgId: string; sameBearer: boolean };
  /** One entry the pool view's background refresh re-read: `refreshed` or `failed` (left stale). */
  "allocation.poolViewRefresh": { outcome: "refreshed" | "failed" };
  /** The pool's free share per dimension, from a pool view or the periodic sampler. */
  "allocation.poolSampled": { orgId: string; dimension: "projects" | "prompts"; freeRatio: number };
  /**
   * One org's turn of the upstream reconciler (spec/provisioning.md §9): `ran`, `skipped` (another
   * process holds the org's run, or ran it less than a period ago), `noCredential` (no live stored
   * token to read upstream with), `failed` (the observation itself failed).
   */
  "upstream.reconcileRun": { orgId: string; outcome: "ran" | "skipped" | "noCredential" | "failed" };
  /** Orphans an org still has after a pass (seen minus reclaimed), for the gauge. */
  "upstream.orphansSeen": { orgId: string; subWorkspaces: number; projects: number; quarantined: number };
  /**
   * One orphan the reconciler reclaimed, re-attached to its market, quarantined (the first time: it
   * holds prompts and is kept), or failed to act on (it tries again next pass).
   */
  /**
   * One market the reconciler's drift repair re-synced to its brand's identity (docs/decisions/0041),
   * or failed to (it tries again next pass).
   */
  "upstream.identityRepaired": { orgId: string; outcome: "repaired" | "failed" };
  "upstream.orphanReclaimed": {
    orgId: string;
    kind: "subWorkspace" | "project";
    outcome: "reclaimed" | "reattached" | "quarantined" | "failed";
  };
  /**
   * One prompt-generator call (spec/generation.md §4): how long it took and how it ended — a
   * verdict, or `error` (then `failureKind`, e.g. timeout, transport, unparseable). `genuineFailure`
   * is decided by the generation domain: never for ship, held, a retryable gate error or an abort.
   */
  "generation.call": {
    generator: "builtin" | "drs" | "openai";
    durationSeconds: number;
    outcome: "ship" | "held" | "gate_error" | "error";
    failureKind?: string;
    genuineFailure: boolean;
  };
}

export type EventName = keyof ServiceEvents;

export class EventBus {
  readonly #emitter = new EventEmitter({ captureRejections: false });

  constructor() {
    this.#emitter.setMaxListeners(100);
  }

  emit<K extends EventName>(name: K, payload: ServiceEvents[K]): void {
    try {
      this.#emitter.emit(name, payload);
    } catch {
      // A failing subscriber must never break the operation that emitted the event.
    }
  }

  on<K extends EventName>(name: K, handler: (payload: ServiceEvents[K]) => void): () => void {
    this.#emitter.on(name, handler);
    return () => this.#emitter.off(name, handler);
  }
}
