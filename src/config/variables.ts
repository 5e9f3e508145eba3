/**
 * Every environment variable Serenity reads, in one list: what docs/configuration.md is generated
 * from (`npm run config:write`; `npm run config:check` fails on drift), and what the drift test
 * compares with the boot schema (env.ts) and with every variable the code names.
 */

export interface ConfigVariable {
  /** The variables of one row (names that go together, e.g. PORT and HOST). */
  names: readonly string[];
  /** The default as a reader needs it (`unset → …` when unset means a behaviour). */
  default: string;
  /** ms, count, …; empty when the value is a name, a URL or a switch. */
  unit: string;
  /** `boot`: read once at start (a change needs a restart); `per use`: read on every request or job. */
  read: "boot" | "per use";
  meaning: string;
}

export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  {
    names: ["NODE_ENV", "SERENITY_ENV"],
    default: "unset",
    unit: "",
    read: "boot",
    meaning:
      "`production` (either one) turns on production mode: the start refuses the development defaults (embedded PostgreSQL, the built-in simulator, a generated auth secret or credential key, the default HOST) and names every missing setting in one line",
  },
  {
    names: ["DATABASE_URL"],
    default: "unset → embedded PostgreSQL",
    unit: "",
    read: "boot",
    meaning: "a real PostgreSQL for production and scale-out",
  },
  {
    names: ["SERENITY_MIGRATE_ON_START"],
    default: "`false`",
    unit: "",
    read: "boot",
    meaning:
      "`true`: `serve` and `worker` apply pending migrations at start (as `--migrate` does); otherwise, against DATABASE_URL, they refuse a schema behind them in one line naming `serenity migrate`. An embedded database is always migrated; operator commands never migrate (docs/decisions/0038)",
  },
  {
    names: ["SERENITY_DATA_DIR"],
    default: "`./.serenity`",
    unit: "",
    read: "boot",
    meaning:
      "embedded database, generated secrets, lockfile, simulator state (made 0700; as root, see [Running as root](../README.md#running-as-root-containers-ci-vms))",
  },
  {
    names: ["PORT", "HOST"],
    default: "`8080`, `127.0.0.1`",
    unit: "port",
    read: "boot",
    meaning: "API listen address",
  },
  {
    names: ["SERENITY_METRICS_PORT"],
    default: "unset → `/metrics` on the API's port",
    unit: "port",
    read: "boot",
    meaning:
      "where `serenity serve` answers `/metrics`, `/healthz` and `/readyz` on HOST, apart from the API; once set, the API's port no longer serves `/metrics` (its org-labelled gauges stay off the public port). 0 = any free port (the log line names it). `serenity worker` uses SERENITY_WORKER_PORT",
  },
  {
    names: ["SEMRUSH_PROJECTS_BASE_URL", "SEMRUSH_USERS_BASE_URL"],
    default: "unset → built-in simulator",
    unit: "",
    read: "boot",
    meaning: "upstream origins (https except loopback; UM falls back to PE)",
  },
  {
    names: ["SERENITY_AUTH_SECRET"],
    default: "generated into the data dir",
    unit: "",
    read: "boot",
    meaning: "HS256 secret for local tokens",
  },
  {
    names: ["SERENITY_AUTH_SECRET_PREVIOUS"],
    default: "unset",
    unit: "",
    read: "boot",
    meaning:
      "during a rotation of SERENITY_AUTH_SECRET: the secret before it, which still verifies tokens (never signs); needs SERENITY_AUTH_SECRET; remove it once the longest token signed with it has expired (docs/runbooks/key-rotation.md)",
  },
  {
    names: ["SERENITY_AUTH_JWKS_URL", "SERENITY_AUTH_ISSUER", "SERENITY_AUTH_AUDIENCE"],
    default: "unset",
    unit: "",
    read: "boot",
    meaning: "production token verification",
  },
  {
    names: ["SERENITY_CREDENTIAL_KEY"],
    default: "generated into the data dir",
    unit: "",
    read: "boot",
    meaning: "32-byte key (base64) sealing stored upstream credentials",
  },
  {
    names: ["SERENITY_CREDENTIAL_KEY_PREVIOUS"],
    default: "unset",
    unit: "",
    read: "boot",
    meaning:
      "during a rotation of SERENITY_CREDENTIAL_KEY: other 32-byte keys (base64, comma-separated) that still unseal credentials, never seal; needs SERENITY_CREDENTIAL_KEY and SERENITY_BUDGET_KEY; `serenity credentials reseal` moves everything to the current key, then they can go (docs/runbooks/key-rotation.md)",
  },
  {
    names: ["SERENITY_BUDGET_KEY"],
    default: "unset → the current SERENITY_CREDENTIAL_KEY",
    unit: "",
    read: "boot",
    meaning:
      "32-byte key (base64) the upstream budget's account hash derives from; pin it to the credential key in use before rotating that key, so a rotation never splits a bearer's budget",
  },
  {
    names: ["SERENITY_CREDENTIAL_TTL"],
    default: "1 h",
    unit: "duration",
    read: "boot",
    meaning: "lifetime of a stored credential whose token is not a JWT",
  },
  {
    names: ["SERENITY_DYNAMIC_ALLOCATION"],
    default: "`false` (`true` in `start`)",
    unit: "",
    read: "per use",
    meaning:
      "the just-in-time allocation kill switch (on only for `true`); on, it follows each org's parent: orgs whose parent does not meter AI are never allocated (ADR 0034)",
  },
  {
    names: ["SERENITY_BRAND_AI_CEILING_PROJECTS", "SERENITY_BRAND_AI_CEILING_PROMPTS"],
    default: "unset",
    unit: "units",
    read: "per use",
    meaning: "per-brand ceiling on a top-up (malformed values are ignored with a warning)",
  },
  {
    names: ["SERENITY_ALLOCATION_LOCK_TIMEOUT_MS"],
    default: "10 000",
    unit: "ms",
    read: "per use",
    meaning: "longest wait for a sub-workspace's allocation lock, then 503 `workspaceBusy`",
  },
  {
    names: ["SERENITY_BRAND_LEASE_TIMEOUT_MS"],
    default: "10 000",
    unit: "ms",
    read: "per use",
    meaning:
      "longest wait of a request for its brand's lease (structural operations run one at a time per brand), then 503 `brandBusy` with Retry-After (docs/decisions/0015)",
  },
  {
    names: ["SERENITY_PUBLISH_LAG_MS"],
    default: "30 000",
    unit: "ms",
    read: "per use",
    meaning:
      "how long after a publish into a sub-workspace its `used` may still read low (decided on PostgreSQL's clock): a release or a rebalance lowering it plans from what Serenity's own publish moved (docs/decisions/0030), and is deferred (skipped) when the publish was not Serenity's",
  },
  {
    names: ["SERENITY_ALLOCATION_REBALANCE"],
    default: "`true`",
    unit: "",
    read: "per use",
    meaning:
      "near pool exhaustion, reclaim slack from sibling sub-workspaces before answering `orgPoolExhausted` (off only for `false`)",
  },
  {
    names: ["SERENITY_MARKET_TAG_SEEDING"],
    default: "`true`",
    unit: "",
    read: "per use",
    meaning:
      "a market's creation makes Serenity's tag roots and known values, so the first prompt write does not (off only for `false`: the comparison of bench/upstream-budget-e2e.ts)",
  },
  {
    names: ["SERENITY_ASYNC_PROVISIONING"],
    default: "`true`",
    unit: "",
    read: "per use",
    meaning: "master switch for `async: true` (off runs the synchronous path)",
  },
  {
    names: ["SERENITY_SYNC_SETTLE_BUDGET_MS"],
    default: "10 000",
    unit: "ms",
    read: "boot",
    meaning: "how long a synchronous create waits for a sub-workspace to settle",
  },
  {
    names: ["SERENITY_PROVISION_SETTLE_BUDGET_MS"],
    default: "600 000",
    unit: "ms",
    read: "boot",
    meaning: "how long the provisioning job waits for a sub-workspace to settle",
  },
  {
    names: ["SERENITY_PROVISIONING_STALE_MS"],
    default: "600 000",
    unit: "ms",
    read: "boot",
    meaning: "a `pending` attempt older than this is stale (failed by the reconciler)",
  },
  {
    names: ["SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS"],
    default: "300 000",
    unit: "ms",
    read: "boot",
    meaning:
      "period of the upstream reconciler per org (in every worker; one process runs an org at a time); `0` turns it off in that process",
  },
  {
    names: ["SERENITY_UPSTREAM_RECONCILE_GRACE_MS"],
    default: "600 000",
    unit: "ms",
    read: "boot",
    meaning:
      "an orphan upstream (a sub-workspace or project Serenity made that no record tracks) is reclaimed once first seen this long ago (ADR 0016)",
  },
  {
    names: ["SERENITY_IDLE_ORG_AFTER_MS"],
    default: "3 600 000",
    unit: "ms",
    read: "boot",
    meaning:
      "an org with no org-scoped API call, no job change and no job failure for this long is idle: the pool sampler skips it and the upstream reconciler runs it only as often as `SERENITY_IDLE_ORG_CALLS_PER_HOUR` allows (ADR 0042)",
  },
  {
    names: ["SERENITY_IDLE_ORG_CALLS_PER_HOUR"],
    default: "12",
    unit: "count",
    read: "boot",
    meaning:
      "upstream calls an idle org's background passes may make per hour, together: its reconciler runs once per `max(SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS, its last run's calls / this h)`; `0` = no idle pace (every org at full pace; ADR 0042)",
  },
  {
    names: ["SERENITY_JOB_STALL_GRACE_MS", "SERENITY_JOB_RETENTION_MS"],
    default: "2 min, 7 days",
    unit: "ms",
    read: "boot",
    meaning: "reconciler: when an unleased job counts as stalled; when terminal records are purged",
  },
  {
    names: ["SERENITY_JOB_LEASE_TTL_MS"],
    default: "each job type's own",
    unit: "ms",
    read: "per use",
    meaning:
      "the lease a job delivery claims, renewed every sixth of it while its handler runs: a worker cut off from PostgreSQL stops its upstream writes within a third of it, and its job is handed on once it lapses (ADR 0023)",
  },
  {
    names: ["SERENITY_JOB_RECONCILE_INTERVAL_MS"],
    default: "60 000",
    unit: "ms",
    read: "boot",
    meaning:
      "period of the job reconciler in each worker: a job whose lease lapsed is handed on within `SERENITY_JOB_STALL_GRACE_MS` + this period (`0` keeps the default)",
  },
  {
    names: ["SERENITY_POOL_SAMPLE_INTERVAL_MS"],
    default: "60 000",
    unit: "ms",
    read: "boot",
    meaning:
      "how often workers sample each org's pool for the pool-free gauge; also how long a known bound of the pool's free units is trusted (read per request, docs/decisions/0033)",
  },
  {
    names: ["SERENITY_POOL_VIEW_MAX_AGE_MS"],
    default: "30 000",
    unit: "ms",
    read: "per use",
    meaning:
      "how old an entry of the resources record may be before a pool view refreshes it in the background (the view still answers at once, with each entry's `asOf`; ADR 0020)",
  },
  {
    names: ["SERENITY_POOL_HISTORY_RETENTION_MS"],
    default: "7 days",
    unit: "ms",
    read: "per use",
    meaning:
      "how long pool samples (the console's pool-over-time chart) are kept: older samples are never listed, and the job reconciler deletes every org's (`poolHistory.expiredSamples`, a batch per run)",
  },
  {
    names: ["SERENITY_ASYNC_PROMPT_GEN"],
    default: "`false` (`true` in `start`)",
    unit: "",
    read: "per use",
    meaning:
      "generated prompts for new markets (on only for `true`, case-insensitive); off → no generation and no `promptGeneration` field",
  },
  {
    names: ["SERENITY_PROMPT_GENERATOR"],
    default: "`builtin`",
    unit: "",
    read: "per use",
    meaning:
      "`builtin` (offline), `drs` (`SERENITY_DRS_URL`) or `openai` (`SERENITY_OPENAI_BASE_URL`, `SERENITY_OPENAI_API_KEY`, `SERENITY_GENERATION_MODEL`)",
  },
  {
    names: ["SERENITY_GENERATION_TIMEOUT_MS"],
    default: "300 000",
    unit: "ms",
    read: "boot",
    meaning: "one generator call's timeout; the job's handler timeout is this plus a 120 s write budget",
  },
  {
    names: ["SERENITY_GENERATION_RATE_PER_ORG"],
    default: "60",
    unit: "count",
    read: "per use",
    meaning:
      "generator runs per org per hour, previews and generation jobs together, across every process; a preview past it answers 429 `rateLimited` with `Retry-After` (the seconds to the hour's end); jobs are counted but never refused (each needs a new market); `0` turns it off",
  },
  {
    names: ["SERENITY_UPSTREAM_TOKEN"],
    default: "unset",
    unit: "",
    read: "boot",
    meaning:
      "the operator's upstream bearer for `serenity sweep` / `audit` (or `--token-file`); workers' upstream reconciler reads with it when an org has no live stored credential (ADR 0016); the pool sampler and every read of a parent's AI metering prefer it (ADR 0034); API processes send it with the upstream-health probe (`serenity_gateway_reachable`; unset: not probed, health unknown). Several tokens separated by commas (one per operator account) share the orgs: each org's background and metering reads use the one its id picks, the probe and the operator tools the first (ADR 0044)",
  },
  {
    names: ["SERENITY_UPSTREAM_RATE_PER_SECOND"],
    default: "10",
    unit: "per second",
    read: "boot",
    meaning:
      "Semrush's requests per second per account and endpoint group; with `SERENITY_UPSTREAM_CONCURRENT` the smaller is the slot count of the shared budget (ADR 0019); `0` = unlimited (no budget, no round trip)",
  },
  {
    names: ["SERENITY_UPSTREAM_CONCURRENT"],
    default: "10",
    unit: "count",
    read: "boot",
    meaning: "Semrush's requests in flight per account and endpoint group; `0` = unlimited",
  },
  {
    names: ["SERENITY_UPSTREAM_BACKGROUND_SLOTS"],
    default: "3",
    unit: "count",
    read: "boot",
    meaning:
      "at most this many of an account's slots held by background work (sampler, reconciler, sweep, audit)",
  },
  {
    names: ["SERENITY_UPSTREAM_WINDOW_MARGIN_MS"],
    default: "50",
    unit: "ms",
    read: "boot",
    meaning: "a slot is reused 1 s plus this margin after its previous call ended",
  },
  {
    names: ["SERENITY_DB_POOL_SIZE"],
    default: "20",
    unit: "count",
    read: "boot",
    meaning:
      "database connections per process; a process that runs jobs needs at least `SERENITY_WORKER_CONCURRENCY` + 2 (checked at start; see [Scaling out](../README.md#scaling-out))",
  },
  {
    names: ["SERENITY_DB_ACQUIRE_TIMEOUT_MS"],
    default: "10 000",
    unit: "ms",
    read: "boot",
    meaning:
      "longest wait for a free connection, then the request answers 503 `databaseUnavailable` (never a hang)",
  },
  {
    names: ["SERENITY_DB_STATEMENT_TIMEOUT_MS", "SERENITY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS"],
    default: "30 000, 30 000",
    unit: "ms",
    read: "boot",
    meaning:
      "PostgreSQL's `statement_timeout` and `idle_in_transaction_session_timeout` on every connection (`0` = none): the server frees what a stuck process holds; the process waits 1 s longer than the statement timeout for an answer, then gives that connection up (a server it cannot hear, as in a silent network partition, fails the statement instead of hanging it)",
  },
  {
    names: ["SERENITY_DB_NESTED_ACQUIRE"],
    default: "`throw`",
    unit: "",
    read: "boot",
    meaning:
      "a connection asked of the pool from inside an open transaction (a latent deadlock) is refused (`throw`) or only logged and counted (`warn`); docs/decisions/0021",
  },
  {
    names: ["SERENITY_WORKER_CONCURRENCY"],
    default: "10",
    unit: "count",
    read: "boot",
    meaning:
      "job handlers running at once in a process that runs jobs (`serenity worker --concurrency` wins)",
  },
  {
    names: ["SERENITY_WORKER_PORT"],
    default: "8081",
    unit: "",
    read: "boot",
    meaning:
      "where `serenity worker` answers `/healthz`, `/readyz` (database and migrations, not Semrush) and `/metrics`, on HOST; `off` opens no port, 0 any free one (the log line names it); several workers on one host need one port each",
  },
  {
    names: ["SERENITY_READINESS_TIMEOUT_MS"],
    default: "500",
    unit: "ms",
    read: "boot",
    meaning:
      "the longest `/readyz` (API and worker) waits for the database, on a connection of its own outside the request pool, before answering 503; keep it under the probe's `timeoutSeconds` (answers are shared for 1 s, so a flood of probes costs one query a second)",
  },
  {
    names: ["SERENITY_SHUTDOWN_GRACE_MS"],
    default: "20 000",
    unit: "ms",
    read: "boot",
    meaning:
      "after SIGTERM/SIGINT, how long in-flight requests and jobs may take; then every database connection is ended and the process exits 1",
  },
  {
    names: ["SERENITY_SIMULATOR_CONTROLS"],
    default: "`false`",
    unit: "",
    read: "boot",
    meaning: "enable the `/__sim` control routes of the in-process simulator",
  },
  {
    names: ["SERENITY_SIMULATOR_INDUSTRY"],
    default: "unset → read from the domain",
    unit: "",
    read: "boot",
    meaning:
      "which `brand-topics` catalogue the in-process simulator serves: `skin-care`, `running-shoes`, `software`, `banking`, `travel` or `generic` for every domain, or per domain (`lumiere.example=travel,*=generic`); unset, a domain naming an industry (`swiftrun.example`) gets its catalogue and any other the generic one. The simulator's `industries` setting, also under `/__sim/settings`",
  },
  {
    names: ["SERENITY_API_RATE_LIMIT_PER_ORG", "SERENITY_API_RATE_LIMIT_PER_TOKEN"],
    default: "`120000`, `60000`",
    unit: "count",
    read: "boot",
    meaning:
      "authenticated API requests per window per org (the route's `:orgId`, counted only for callers who may access it) and per bearer token, across every `serve` process; past either, 429 `rateLimited` with `Retry-After`; `0` turns that limit off. `/healthz`, `/readyz`, `/metrics`, `/docs`, `/openapi.json` and the console's pages are never limited ([ADR 0029](decisions/0029-api-rate-limits.md))",
  },
  {
    names: ["SERENITY_API_RATE_LIMIT_WINDOW_MS"],
    default: "60 s",
    unit: "ms",
    read: "boot",
    meaning: "the fixed window of those limits (1 s to 1 h)",
  },
  {
    names: ["SERENITY_CORS_ORIGINS"],
    default: "unset → none",
    unit: "",
    read: "boot",
    meaning:
      "the origins a browser UI on another origin may call the API from, comma-separated (`https://app.example.com,https://admin.example.com`): they get CORS headers, with `x-request-id`, `Retry-After`, `Idempotent-Replayed`, `Location` and the rate-limit fields exposed; preflights are answered without a token. `*` (any origin) is refused in production mode ([ADR 0037](decisions/0037-integrator-conventions.md))",
  },
  {
    names: ["REDIS_URL"],
    default: "unset → PostgreSQL",
    unit: "",
    read: "boot",
    meaning:
      "`redis://…`: the API limits' counters live in that Redis instead of PostgreSQL (nothing else uses it); an unreachable Redis lets requests through",
  },
  {
    names: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    default: "unset → tracing off",
    unit: "",
    read: "boot",
    meaning:
      "an OpenTelemetry collector's OTLP/HTTP base URL (`/v1/traces` is appended), or the traces URL itself: `serve`, `worker` and `start` then export a trace per request and job delivery with a span per upstream call ([docs/tracing.md](tracing.md)); the exporter's other `OTEL_EXPORTER_OTLP_*` variables (headers, timeout) apply",
  },
  {
    names: ["OTEL_SERVICE_NAME"],
    default: "`serenity`",
    unit: "",
    read: "boot",
    meaning:
      "the `service.name` of exported spans (each also carries `serenity.process`: serve, worker or start)",
  },
  {
    names: ["LOG_LEVEL"],
    default: "`info`",
    unit: "",
    read: "boot",
    meaning: "pino level",
  },
  {
    names: ["LOG_FORMAT"],
    default: "unset → by command",
    unit: "",
    read: "boot",
    meaning:
      "`json` (JSON lines) or `pretty` (human-readable lines, coloured only on a terminal); unset: `pretty` for `serenity start` on a terminal, else `json` (`serve`, `worker`, a file or a pipe)",
  },
  {
    names: ["SERENITY_DRS_URL"],
    default: "unset",
    unit: "",
    read: "per use",
    meaning: "the DRS generator's endpoint (required with `SERENITY_PROMPT_GENERATOR=drs`)",
  },
  {
    names: ["SERENITY_OPENAI_BASE_URL", "SERENITY_OPENAI_API_KEY", "SERENITY_GENERATION_MODEL"],
    default: "unset",
    unit: "",
    read: "per use",
    meaning:
      "the OpenAI-compatible generator's endpoint, key (a secret, never logged) and model (`SERENITY_PROMPT_GENERATOR=openai`)",
  },
  {
    names: ["SERENITY_ALLOCATION_EXACT_TOPUP"],
    default: "`true`",
    unit: "",
    read: "per use",
    meaning:
      "`false` keeps every top-up block-rounded (the design before exact top-ups): a comparison switch for tests and benchmarks",
  },
];
