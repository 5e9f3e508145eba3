import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * The whole schema. Timestamps that decide an expiry or a takeover (lease expiry, a job's or a
 * brand's updated_at, a publish's time) are written on PostgreSQL's clock inside the guarded
 * statement, or on a test's hand-driven time passed in its place (src/db/databaseTime.ts,
 * docs/decisions/0023).
 */

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const orgs = pgTable("orgs", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  /** One org per pool: two orgs on one parent would each show the other's usage as theirs. */
  parentWorkspaceId: text("parent_workspace_id").unique("orgs_parent_workspace_id_unique"),
  /** The org's id in the identity provider, sent to generators as `metadata.imsOrgId`. */
  externalId: text("external_id"),
  createdAt: tz("created_at").notNull(),
  updatedAt: tz("updated_at").notNull(),
});

export const brands = pgTable(
  "brands",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id),
    name: text("name").notNull(),
    /**
     * The name as the per-org uniqueness sees it: `lower(btrim(name))`, written by insertBrand. NULL only
     * for brands that already shared a name when the rule came in (docs/decisions/0022): they are
     * kept as they are, and a new brand cannot take that name again.
     */
    nameKey: text("name_key"),
    domain: text("domain"),
    primaryUrl: text("primary_url"),
    aliases: text("aliases")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The brand's competitors, `[{name, domain, aliases}]` (≤ 20; docs/decisions/0041). */
    competitors: jsonb("competitors")
      .$type<{ name: string; domain: string; aliases: string[] }[]>()
      .notNull()
      .default([]),
    /** The brand's own, social and earned URLs, `[{url, kind}]` (≤ 50; docs/decisions/0041). */
    urls: jsonb("urls").$type<{ url: string; kind: "owned" | "social" | "earned" }[]>().notNull().default([]),
    /**
     * Bumped by every change of what markets carry upstream (name, domain, primary URL, aliases,
     * competitors, URLs): a market whose `identity_version` is lower has yet to follow.
     */
    identityVersion: integer("identity_version").notNull().default(0),
    /** Aliases the upstream answered as rejected (`rejected_brand_aliases`), reported, not retried. */
    rejectedAliases: text("rejected_aliases")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** The emptied sub-workspace a deleted brand left upstream (a parked shell, never reclaimed). */
    retiredSubWorkspaceId: text("retired_sub_workspace_id"),
    status: text("status", { enum: ["pending", "active", "deleted"] }).notNull(),
    /** The canonical pointer: written only once the upstream confirms the workspace is ready. */
    subWorkspaceId: text("sub_workspace_id").unique("brands_sub_workspace_id_unique"),
    provisioningStatus: text("provisioning_status", { enum: ["pending", "ready", "failed"] }),
    provisioningAttemptId: uuid("provisioning_attempt_id"),
    /** Not a foreign key: job records are purged. */
    provisioningJobId: uuid("provisioning_job_id"),
    provisioningError: text("provisioning_error"),
    provisioningCandidateWorkspaceId: text("provisioning_candidate_workspace_id"),
    createdAt: tz("created_at").notNull(),
    updatedAt: tz("updated_at").notNull(),
  },
  (table) => [
    index("brands_org_id_idx").on(table.orgId),
    unique("brands_org_name_key_unique").on(table.orgId, table.nameKey),
    check("brands_provisioning_error_length", sql`char_length(${table.provisioningError}) <= 2000`),
  ],
);

export const markets = pgTable(
  "markets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    brandId: uuid("brand_id")
      .notNull()
      .references(() => brands.id),
    geoTargetId: integer("geo_target_id").notNull(),
    languageCode: text("language_code").notNull(),
    country: text("country").notNull(),
    workspaceId: text("workspace_id").notNull(),
    /**
     * `creating` reserves the slice before the upstream project exists (our table is the only
     * guard against duplicate slices: upstream allows them); `ready` once the project is published.
     */
    status: text("status", { enum: ["creating", "ready"] })
      .notNull()
      .default("ready"),
    projectId: text("project_id"),
    /**
     * Who holds a `creating` reservation, when that holder may come back for it: a job's lineage
     * (`job:<root job id>`), stable across redeliveries, so a redelivered create reclaims its own
     * leftover instead of answering `marketExists` to itself (ADR 0007). NULL for a synchronous
     * create: a request that dies is not redelivered.
     */
    reservationKey: text("reservation_key"),
    /** The brand identity version the market's project last followed (brands.identity_version). */
    identityVersion: integer("identity_version").notNull().default(0),
    createdAt: tz("created_at").notNull(),
    updatedAt: tz("updated_at").notNull(),
  },
  (table) => [unique("markets_brand_slice_unique").on(table.brandId, table.geoTargetId, table.languageCode)],
);

/**
 * What Serenity knows about a market's project, used before asking upstream (a bulk create's
 * critical path): the catalogue ids of the models it tracks, as of `known_at`. Serenity sets them
 * itself (create market, replace models); a save never replaces a newer set, and a set found
 * stale upstream (a metered write refused for units the set did not count) is read again.
 */
export const marketModels = pgTable("market_models", {
  marketId: uuid("market_id")
    .primaryKey()
    .references(() => markets.id, { onDelete: "cascade" }),
  projectId: text("project_id").notNull(),
  modelIds: jsonb("model_ids").$type<string[]>().notNull(),
  knownAt: tz("known_at").notNull(),
});

/**
 * The upstream tag ids of a market's project (our taxonomy: `origin` for a root dimension,
 * `origin=human` for a value), created or found by Serenity. A tag deleted upstream behind our
 * back makes the create that names it fail (nothing created): the market's ids are then
 * forgotten and resolved again.
 */
export const marketTags = pgTable(
  "market_tags",
  {
    marketId: uuid("market_id")
      .notNull()
      .references(() => markets.id, { onDelete: "cascade" }),
    projectId: text("project_id").notNull(),
    tagKey: text("tag_key").notNull(),
    tagId: text("tag_id").notNull(),
    knownAt: tz("known_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.marketId, table.tagKey] })],
);

/**
 * Who deleted which prompts of a market, and when (spec/api.md §5: "who deleted what is kept";
 * docs/decisions/0040). One row per market per delete, written after the delete and its publish
 * succeeded upstream. Serenity keeps no table of the prompts themselves: the ids are the upstream's.
 */
export const promptDeletions = pgTable(
  "prompt_deletions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull(),
    brandId: uuid("brand_id").notNull(),
    marketId: uuid("market_id").notNull(),
    promptIds: jsonb("prompt_ids").$type<string[]>().notNull(),
    /** The caller's `sub`. */
    actor: text("actor").notNull(),
    requestId: text("request_id"),
    deletedAt: tz("deleted_at").notNull(),
  },
  (table) => [index("prompt_deletions_brand_idx").on(table.brandId, table.deletedAt)],
);

export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey(),
    type: text("type").notNull(),
    orgId: uuid("org_id").notNull(),
    brandId: uuid("brand_id"),
    status: text("status", { enum: ["IN_PROGRESS", "COMPLETED", "FAILED"] }).notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    credentialId: uuid("credential_id"),
    leaseToken: uuid("lease_token"),
    leaseExpiresAt: tz("lease_expires_at"),
    attempts: integer("attempts").notNull().default(0),
    result: jsonb("result").$type<Record<string, unknown>>(),
    error: jsonb("error").$type<{ code: string; message: string; retryable: boolean }>(),
    nextJobId: uuid("next_job_id"),
    /**
     * The first record of this record's requeue/chain lineage (NULL on the root itself): lets a
     * poll reach the lineage's last hop in one indexed read, however many hand-offs it took.
     */
    rootJobId: uuid("root_job_id"),
    /**
     * The W3C trace context (`traceparent`, `tracestate`) of the work that created or re-armed the
     * record, so its deliveries continue that trace; NULL when tracing was off.
     */
    traceContext: jsonb("trace_context").$type<{ traceparent: string; tracestate?: string }>(),
    createdBy: text("created_by"),
    createdAt: tz("created_at").notNull(),
    updatedAt: tz("updated_at").notNull(),
  },
  (table) => [
    index("jobs_status_updated_idx").on(table.status, table.updatedAt),
    index("jobs_brand_id_idx").on(table.brandId),
    index("jobs_root_job_id_idx").on(table.rootJobId),
    // The org's job list (newest first, cursor on created_at and id).
    index("jobs_org_created_idx").on(table.orgId, table.createdAt, table.id),
  ],
);

export const credentials = pgTable("credentials", {
  id: uuid("id").primaryKey().defaultRandom(),
  ownerSub: text("owner_sub").notNull(),
  audience: text("audience").notNull(),
  /** AES-256-GCM sealed token (iv ‖ tag ‖ ciphertext); NULL once invalidated. */
  sealed: bytea("sealed"),
  expiresAt: tz("expires_at").notNull(),
  invalidatedAt: tz("invalidated_at"),
  createdAt: tz("created_at").notNull(),
});

export const allocationLedger = pgTable(
  "allocation_ledger",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    orgId: uuid("org_id").notNull(),
    brandId: uuid("brand_id"),
    subWorkspaceId: text("sub_workspace_id").notNull(),
    reason: text("reason", {
      enum: ["topUp", "exact", "rebalance", "release", "sweep", "deactivate", "reconcile"],
    }).notNull(),
    before: jsonb("before").$type<{ projects: number; prompts: number }>(),
    after: jsonb("after").$type<{ projects: number; prompts: number }>(),
    outcome: text("outcome").notNull(),
    errorCode: text("error_code"),
    requestId: text("request_id"),
    createdAt: tz("created_at").notNull(),
  },
  (table) => [index("allocation_ledger_org_idx").on(table.orgId, table.id)],
);

/** Cross-process allocation locks: a lease row per sub-workspace, no connection held while waiting. */
export const allocationLocks = pgTable("allocation_locks", {
  subWorkspaceId: text("sub_workspace_id").primaryKey(),
  holder: uuid("holder").notNull(),
  expiresAt: tz("expires_at").notNull(),
});

/**
 * Per-brand leases (docs/decisions/0015): the brand's structural operations — activate,
 * deactivate, create / delete market, replace models, and the jobs doing the same — run one at a
 * time across processes. Same shape and rules as `allocation_locks`; no foreign key, so a brand
 * deleted under a holder never turns its release into an error.
 */
export const brandLeases = pgTable("brand_leases", {
  brandId: uuid("brand_id").primaryKey(),
  holder: uuid("holder").notNull(),
  expiresAt: tz("expires_at").notNull(),
});

/**
 * The resources record (spec/allocation.md §12, ADR 0020): the latest of what Serenity learned of
 * each workspace's AI resources — the parent's and every sub-workspace's of an org — from a read
 * (guard, release, rebalance, sampler, audit, reconciler, pool-view refresh) or a transfer's
 * answer, with the time it was learned (`observed_at`, the app clock at the call's start). Every
 * write is guarded on `observed_at`, so an older observation never replaces a newer one. The pool
 * view answers from it; `refresh_claimed_until` is the background refresh's claim, so several
 * processes do not re-read one stale entry twice.
 */
export const resourceObservations = pgTable(
  "resource_observations",
  {
    orgId: uuid("org_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    projectsUsed: integer("projects_used").notNull(),
    projectsDrafted: integer("projects_drafted").notNull(),
    projectsTotal: integer("projects_total").notNull(),
    promptsUsed: integer("prompts_used").notNull(),
    promptsDrafted: integer("prompts_drafted").notNull(),
    promptsTotal: integer("prompts_total").notNull(),
    /** The title the parent's family read gave it (shown for sub-workspaces no brand points at). */
    title: text("title"),
    observedAt: tz("observed_at").notNull(),
    refreshClaimedUntil: tz("refresh_claimed_until"),
    /**
     * The org's parent only (spec/allocation.md §13, docs/decisions/0034): whether its `ai` product
     * meters (`metered` / `unmetered`), from the `limits_enabled` of its `GET /v1/workspaces/{id}`
     * answer, read at `metering_as_of` (the app clock at the read's start). NULL = unknown: never
     * read, or every read so far failed. Written only by a newer read (recordParentMetering).
     */
    metering: text("metering", { enum: ["metered", "unmetered"] }),
    meteringAsOf: tz("metering_as_of"),
    /*
     * The fold (issue 38, docs/decisions/0046–0049): what three tables of their own held until
     * migration 0027 dropped them — a sub-workspace's last publish and model adds, the pool's free
     * bounds and lowerings — on the workspace's entry.
     */
    /**
     * Moved on by every announcement's begin and end (a model add on a sub-workspace's entry, a
     * lowering on the parent's): what a call taught is recorded only if the version is the one
     * read before it was sent and no announcement is in flight.
     */
    version: integer("version").notNull().default(0),
    /** Announcements begun and not yet ended; they stop holding at `announced_until`. */
    announced: integer("announced").notNull().default(0),
    announcedUntil: tz("announced_until"),
    /**
     * A sub-workspace's last publish, on the database's clock. Upstream's `used` catches up
     * asynchronously after a publish (spec/gateway.md §3), so a release computed from a read inside
     * that lag could lower the allocation below real usage (ADR 0001 addendum). A publish made
     * inside a guarded section also carries what that section's read says (docs/decisions/0030):
     * `*_used_bound`, at least the real `used` right after the publish (the read's `used`, raised to
     * the previous publish's bound when the read was inside its window, plus all the publish can
     * have moved: the read's `drafted` and the section's staged need), and `*_moved_in_window`, the
     * units the publishes of its window moved (what a read inside it can at most be missing). Null:
     * a publish without such a read — the conservative rule (skip, defer) applies.
     */
    publishedAt: tz("published_at"),
    basisReadAt: tz("basis_read_at"),
    projectsUsedBound: integer("projects_used_bound"),
    promptsUsedBound: integer("prompts_used_bound"),
    projectsMovedInWindow: integer("projects_moved_in_window"),
    promptsMovedInWindow: integer("prompts_moved_in_window"),
    /**
     * A delete landed inside the window: the bound still holds (a delete only lowers `used`) but may
     * be far above it, so the guard no longer plans its own top-ups from it (docs/decisions/0030,
     * addendum). Cleared when a publish starts a new window.
     */
    boundLoose: boolean("bound_loose").notNull().default(false),
    /**
     * The parent's entry: its free units (`total − used`, what a transfer may take) are below
     * these (ADR 0033), learned from a transfer refused for insufficient units or a read of the
     * parent, at the time the call was sent (the database's clock); trusted for the pool sampler's
     * interval. Raised by every unit Serenity gives back, before it is sent.
     */
    projectsFreeBelow: integer("projects_free_below"),
    projectsFreeLearnedAt: tz("projects_free_learned_at"),
    promptsFreeBelow: integer("prompts_free_below"),
    promptsFreeLearnedAt: tz("prompts_free_learned_at"),
  },
  (table) => [
    primaryKey({ columns: [table.orgId, table.workspaceId] }),
    index("resource_observations_org_observed_idx").on(table.orgId, table.observedAt),
    // The sub-workspace's writes that know no org (a delete's loosening, a publish's end).
    index("resource_observations_workspace_idx").on(table.workspaceId),
  ],
);

/**
 * The org pool over time (the console's "pool free" line): one row per sample the pool sampler or a
 * fresh pool view recorded, purged after the retention (src/poolView/poolHistory.ts).
 */
export const poolSamples = pgTable(
  "pool_samples",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    orgId: uuid("org_id").notNull(),
    projects: jsonb("projects").$type<PoolSampleDimension>().notNull(),
    prompts: jsonb("prompts").$type<PoolSampleDimension>().notNull(),
    sampledAt: tz("sampled_at").notNull(),
  },
  (table) => [
    index("pool_samples_org_sampled_idx").on(table.orgId, table.sampledAt),
    // The job reconciler's purge of every org's expired samples, idle orgs' included (issue 42).
    index("pool_samples_sampled_idx").on(table.sampledAt),
  ],
);

export interface PoolSampleDimension {
  used: number;
  drafted: number;
  total: number;
  free: number;
}

export const workerHeartbeats = pgTable("worker_heartbeats", {
  workerId: text("worker_id").primaryKey(),
  jobTypes: text("job_types").array().notNull(),
  seenAt: tz("seen_at").notNull(),
});

/**
 * The upstream reconciler's per-org run lease (spec/provisioning.md §9, ADR 0016): one process at a
 * time reconciles an org, and `last_finished_at` spaces the runs a period apart whichever worker
 * takes them. A run that dies leaves a lease that simply expires.
 */
export const upstreamReconcileRuns = pgTable("upstream_reconcile_runs", {
  orgId: uuid("org_id").primaryKey(),
  holder: uuid("holder"),
  leaseExpiresAt: tz("lease_expires_at"),
  lastFinishedAt: tz("last_finished_at"),
  /**
   * How many upstream calls the org's last run made (its retries included): an idle org's next run
   * waits until that many calls fit its hourly budget (docs/decisions/0042). NULL before a first run.
   */
  lastCalls: integer("last_calls"),
});

/**
 * The pool sampler's per-org run lease (docs/decisions/0042), the reconciler's twin: one process at
 * a time samples an org, and `last_finished_at` spaces its samples a period apart whichever worker
 * takes them, so N workers sample an org once a period, not N times.
 */
export const poolSampleRuns = pgTable("pool_sample_runs", {
  orgId: uuid("org_id").primaryKey(),
  holder: uuid("holder"),
  leaseExpiresAt: tz("lease_expires_at"),
  lastFinishedAt: tz("last_finished_at"),
});

/**
 * When an org was last used through the API (any org-scoped call: a view or a write), to within a
 * minute: a process writes it at most once a minute per org (src/orgs/orgActivityMarks.ts). With the
 * org's jobs it decides whether the org is idle, and so the pace of its background passes
 * (docs/decisions/0042). A table of its own, so the hot `orgs` row is not rewritten by reads.
 */
export const orgActivity = pgTable("org_activity", {
  orgId: uuid("org_id").primaryKey(),
  activeAt: tz("active_at").notNull(),
});

/**
 * Upstream things Serenity made that no record tracks, from the first pass that saw them: the
 * upstream gives no creation time, so the grace period runs from `first_seen_at`. A row goes away
 * once its thing is tracked, claimed, reclaimed, re-attached or gone.
 */
export const upstreamOrphanSightings = pgTable(
  "upstream_orphan_sightings",
  {
    orgId: uuid("org_id").notNull(),
    kind: text("kind", { enum: ["subWorkspace", "project"] }).notNull(),
    upstreamId: text("upstream_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    firstSeenAt: tz("first_seen_at").notNull(),
    lastSeenAt: tz("last_seen_at").notNull(),
    /**
     * Set when the reconciler found the thing holding prompts it could not re-attach: kept as it is,
     * reported by `serenity audit`, deleted only by `serenity reconcile --delete <id>` (ADR 0016).
     */
    quarantinedAt: tz("quarantined_at"),
  },
  (table) => [primaryKey({ columns: [table.orgId, table.kind, table.upstreamId] })],
);

/**
 * Idempotency keys of the API's creates (docs/decisions/0022): one row per (org, caller, route,
 * key), holding the request's fingerprint and, once answered, the answer replayed to repeats. An
 * `inProgress` row is its holder's until `locked_until` (the database's clock); repeats wait for
 * it. A row stops counting at `expires_at` (24 h after the first request) and is purged.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    /** The route's org, or "" for a route that has none (creating an org). */
    orgId: text("org_id").notNull(),
    principal: text("principal").notNull(),
    /** Method and route template, e.g. `POST /v2/orgs/:orgId/brands`. */
    route: text("route").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the concrete path and the canonical body. */
    fingerprint: text("fingerprint").notNull(),
    state: text("state", { enum: ["inProgress", "done"] }).notNull(),
    holder: uuid("holder").notNull(),
    lockedUntil: tz("locked_until"),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    createdAt: tz("created_at").notNull(),
    expiresAt: tz("expires_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.orgId, table.principal, table.route, table.key] }),
    index("idempotency_keys_expires_idx").on(table.expiresAt),
  ],
);

/**
 * The API's request counters (docs/decisions/0029): one row per limited key (`org:<id>` or
 * `token:<hash of the bearer>`, never the token), counting the requests of a fixed window that
 * ends at `window_ends_at` (the database's clock). Rows of windows long past are purged.
 */
export const apiRateLimits = pgTable(
  "api_rate_limits",
  {
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    windowEndsAt: tz("window_ends_at").notNull(),
  },
  (table) => [index("api_rate_limits_window_ends_idx").on(table.windowEndsAt)],
);

export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: tz("updated_at").notNull(),
});

/**
 * The shared upstream budget (docs/decisions/0019): `slots` rows per (account, endpoint group),
 * created on first use. A slot is taken by a guarded update of a free one (no live holder) whose
 * previous call ended at least a window ago, so N slots bound both calls per second and calls in
 * flight — whatever the network jitter, since a call reached the upstream before its answer came.
 * `account_key` is a keyed hash of the bearer (never the token). Times here come from the
 * database's clock (`clock_timestamp()`), never from two processes' clocks; tests inject one.
 */
export const upstreamBudgetSlots = pgTable(
  "upstream_budget_slots",
  {
    accountKey: text("account_key").notNull(),
    endpointGroup: text("endpoint_group").notNull(),
    slot: integer("slot").notNull(),
    holder: uuid("holder"),
    /** 0 interactive, 1 job, 2 background (domain/upstreamBudget.ts priorityRank). */
    holderPriority: integer("holder_priority"),
    startedAt: tz("started_at").notNull(),
    /** When the previous call on this slot ended (its release): reusable one window later. */
    endedAt: tz("ended_at").notNull(),
    leaseExpiresAt: tz("lease_expires_at"),
  },
  (table) => [primaryKey({ columns: [table.accountKey, table.endpointGroup, table.slot] })],
);

/** The adaptive limit of an (account, group) after the last 429 (AIMD; absent = the full slots). */
export const upstreamBudgetAdaptive = pgTable(
  "upstream_budget_adaptive",
  {
    accountKey: text("account_key").notNull(),
    endpointGroup: text("endpoint_group").notNull(),
    lowered: integer("lowered").notNull(),
    loweredAt: tz("lowered_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountKey, table.endpointGroup] })],
);

/**
 * Who waits for an (account, group), by priority, with a short expiry the waiter renews while it
 * polls: a lower priority does not take a slot a waiting higher one would get (any process).
 */
export const upstreamBudgetWaiters = pgTable(
  "upstream_budget_waiters",
  {
    accountKey: text("account_key").notNull(),
    endpointGroup: text("endpoint_group").notNull(),
    waiter: uuid("waiter").notNull(),
    priority: integer("priority").notNull(),
    expiresAt: tz("expires_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountKey, table.endpointGroup, table.waiter, table.priority] })],
);

export const schema = {
  orgs,
  brands,
  markets,
  marketModels,
  marketTags,
  promptDeletions,
  jobs,
  credentials,
  allocationLedger,
  allocationLocks,
  brandLeases,
  poolSamples,
  resourceObservations,
  workerHeartbeats,
  settings,
  idempotencyKeys,
  apiRateLimits,
  upstreamReconcileRuns,
  poolSampleRuns,
  orgActivity,
  upstreamOrphanSightings,
  upstreamBudgetSlots,
  upstreamBudgetAdaptive,
  upstreamBudgetWaiters,
};
