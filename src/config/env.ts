import path from "node:path";

import { z } from "zod";

import { parseCorsOrigins } from "./corsOrigins.ts";
import {
  DEFAULT_ACQUIRE_TIMEOUT_MS,
  DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  DEFAULT_POOL_SIZE,
  DEFAULT_STATEMENT_TIMEOUT_MS,
} from "./databaseDefaults.ts";
import { durationMs, type FlagSource, InvalidDuration } from "./flags.ts";
import { GENERATOR_ENV_SHAPE } from "./generatorEnv.ts";
import { parseOperatorTokens } from "./operatorTokens.ts";
import { isProductionMode, productionRefusalLine, productionRefusals } from "./productionMode.ts";

/**
 * Boot-time configuration: every variable of SPEC §6 that the process needs to start.
 * Feature flags that must take effect without a restart live in `flags.ts` and are read per use.
 */

const httpOrigin = z.url({ protocol: /^https?$/ }).transform((value) => new URL(value).origin);

function isBase64Key(value: string): boolean {
  return Buffer.from(value, "base64").length === 32;
}

const base64Key = z.string().refine(isBase64Key, "must be 32 bytes, base64-encoded");

const positiveInt = z.coerce.number().int().positive();

/** Where `serenity worker` answers its probes and `/metrics` unless SERENITY_WORKER_PORT says otherwise. */
export const DEFAULT_WORKER_PORT = 8081;

/** The pool-size rule (see workerPoolRule): connections a worker keeps beyond its handlers. */
export const WORKER_POOL_RESERVE = 2;

const envSchema = z.object({
  NODE_ENV: z.string().optional(),
  SERENITY_ENV: z.string().optional(),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  SERENITY_DATA_DIR: z.string().min(1).default("./.serenity"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  SEMRUSH_PROJECTS_BASE_URL: httpOrigin.optional(),
  SEMRUSH_USERS_BASE_URL: httpOrigin.optional(),
  SERENITY_AUTH_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  SERENITY_AUTH_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  SERENITY_AUTH_ISSUER: z.string().min(1).optional(),
  SERENITY_AUTH_AUDIENCE: z.string().min(1).optional(),
  SERENITY_AUTH_SECRET_PREVIOUS: z.string().min(16, "must be at least 16 characters").optional(),
  SERENITY_CREDENTIAL_KEY: base64Key.optional(),
  SERENITY_CREDENTIAL_KEY_PREVIOUS: z
    .string()
    .transform((value) =>
      value
        .split(",")
        .map((key) => key.trim())
        .filter((key) => key.length > 0),
    )
    .refine((keys) => keys.every(isBase64Key), "must be 32-byte keys, base64-encoded, separated by commas")
    .optional(),
  SERENITY_BUDGET_KEY: base64Key.optional(),
  SERENITY_SIMULATOR_CONTROLS: z.enum(["true", "false"]).default("false"),
  SERENITY_MIGRATE_ON_START: z.enum(["true", "false"]).default("false"),
  // Which catalogue the built-in simulator's brand-topics serves; parsed by the simulator at start.
  SERENITY_SIMULATOR_INDUSTRY: z.string().optional(),
  SERENITY_SYNC_SETTLE_BUDGET_MS: positiveInt.default(10_000),
  SERENITY_DB_POOL_SIZE: positiveInt.default(DEFAULT_POOL_SIZE),
  SERENITY_DB_NESTED_ACQUIRE: z.enum(["throw", "warn"]).default("throw"),
  SERENITY_WORKER_CONCURRENCY: positiveInt.default(10),
  SERENITY_IDLE_ORG_CALLS_PER_HOUR: z.coerce.number().int().min(0).default(12),
  SERENITY_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SERENITY_WORKER_PORT: z
    .union([z.literal("off"), z.coerce.number().int().min(0).max(65535)])
    .default(DEFAULT_WORKER_PORT),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  // A secret: Config.upstreamToken, redacted from logs (src/observability/logger.ts).
  SERENITY_UPSTREAM_TOKEN: z.string().optional(),
  // The shared upstream budget (docs/decisions/0019): Semrush's published limits by default.
  SERENITY_UPSTREAM_RATE_PER_SECOND: z.coerce.number().int().min(0).max(1000).default(10),
  SERENITY_UPSTREAM_CONCURRENT: z.coerce.number().int().min(0).max(1000).default(10),
  SERENITY_UPSTREAM_BACKGROUND_SLOTS: z.coerce.number().int().min(1).max(1000).default(3),
  SERENITY_UPSTREAM_WINDOW_MARGIN_MS: z.coerce.number().int().min(0).max(10_000).default(50),
  // Per-org and per-token API limits (docs/decisions/0029): requests per window, 0 = no limit.
  SERENITY_API_RATE_LIMIT_PER_ORG: z.coerce.number().int().min(0).default(120_000),
  SERENITY_API_RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(0).default(60_000),
  SERENITY_API_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  // Browser UIs on other origins (src/api/cors.ts): parsed by parseCorsOrigins.
  SERENITY_CORS_ORIGINS: z.string().optional(),
  // Validated at start, read per use by generation (src/generation/generatorSettings.ts).
  ...GENERATOR_ENV_SHAPE,
});

export type RawEnv = z.infer<typeof envSchema>;

/** The variables the boot schema validates (docs/configuration.md must list each one). */
export const BOOT_SCHEMA_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  databaseUrl: string | undefined;
  dataDir: string;
  port: number;
  host: string;
  /**
   * SERENITY_METRICS_PORT (unset: none): where `serenity serve` answers /metrics, /healthz and /readyz
   * on HOST apart from the API, and then /metrics is not served on the API's port at all.
   */
  metricsPort: number | undefined;
  gateway: { projectsBaseUrl: string; usersBaseUrl: string } | undefined;
  auth: {
    secret: string | undefined;
    /** SERENITY_AUTH_SECRET_PREVIOUS: still verifies during a rotation; never signs. */
    previousSecret: string | undefined;
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
  };
  credentialKey: string | undefined;
  /** SERENITY_CREDENTIAL_KEY_PREVIOUS: keys that still unseal, never seal (docs/decisions/0031). */
  previousCredentialKeys: readonly string[];
  /** SERENITY_BUDGET_KEY: what the budget's account hash derives from (else the current credential key). */
  budgetKey: string | undefined;
  simulatorControls: boolean;
  /**
   * SERENITY_MIGRATE_ON_START (default false): `serve` and `worker` apply pending migrations at
   * start, as `--migrate` does; otherwise they refuse a schema behind them (docs/decisions/0038).
   */
  migrateOnStart: boolean;
  /** `SERENITY_SIMULATOR_INDUSTRY` as given (the built-in simulator parses it), or undefined. */
  simulatorIndustry: string | undefined;
  syncSettleBudgetMs: number;
  logLevel: RawEnv["LOG_LEVEL"];
  /** LOG_FORMAT: unset = by command and terminal (src/observability/logFormat.ts). */
  logFormat: RawEnv["LOG_FORMAT"];
  /**
   * SERENITY_UPSTREAM_TOKEN, trimmed: the operator's upstream bearer, which the workers' upstream
   * reconciler reads with when an org has no live stored credential (ADR 0016). Never logged: the
   * logger redacts `upstreamToken` wherever the config lands in a line.
   */
  upstreamToken: string | undefined;
  /**
   * Every token SERENITY_UPSTREAM_TOKEN lists (commas between): each org's background reads and
   * metering reads use the one its id picks (docs/decisions/0044); `upstreamToken` is the first.
   * Never logged (`upstreamTokens` is redacted too).
   */
  upstreamTokens: string[];
  upstreamBudget: UpstreamBudgetSettings;
  worker: WorkerSettings;
  database: DatabaseSettings;
  apiRateLimits: ApiRateLimitSettings;
  /** SERENITY_CORS_ORIGINS: origins a browser UI may call the API from (none by default; ADR 0037). */
  corsOrigins: string[];
  /**
   * SERENITY_SHUTDOWN_GRACE_MS (default 20 s): after SIGTERM/SIGINT, how long in-flight requests
   * and jobs may take to finish; then every database connection is ended and the process exits.
   */
  shutdownGraceMs: number;
  /**
   * SERENITY_READINESS_TIMEOUT_MS (default 500 ms): the longest `/readyz` waits for the database on
   * its own connection before answering 503; keep it under the probe's timeout (docs/decisions/0038).
   */
  readinessTimeoutMs: number;
}

/** The API's own request limits (docs/decisions/0029), shared by every `serve` process. */
export interface ApiRateLimitSettings {
  /** SERENITY_API_RATE_LIMIT_PER_ORG (default 120,000; 0 = none): requests per window per org. */
  perOrg: number;
  /** SERENITY_API_RATE_LIMIT_PER_TOKEN (default 60,000; 0 = none): requests per window per bearer token. */
  perToken: number;
  /** SERENITY_API_RATE_LIMIT_WINDOW_MS (default 60 s): the fixed window the counts reset after. */
  windowMs: number;
  /** REDIS_URL: the counters live in that Redis instead of PostgreSQL. */
  redisUrl: string | undefined;
}

/** The connection pool's settings (src/db/database.ts; the sizing rule in docs/decisions/0021). */
export interface DatabaseSettings {
  /** SERENITY_DB_POOL_SIZE (default 20): connections per process. */
  poolSize: number;
  /** SERENITY_DB_ACQUIRE_TIMEOUT_MS (default 10 s): wait for a free connection, then 503. */
  acquireTimeoutMs: number;
  /** SERENITY_DB_STATEMENT_TIMEOUT_MS (default 30 s; 0 = none). */
  statementTimeoutMs: number;
  /** SERENITY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS (default 30 s; 0 = none). */
  idleInTransactionTimeoutMs: number;
  /** SERENITY_DB_NESTED_ACQUIRE (default throw): a checkout inside an open transaction. */
  nestedAcquire: "throw" | "warn";
}

/** The upstream budget's settings (docs/decisions/0019); read once at start. */
export interface UpstreamBudgetSettings {
  /** SERENITY_UPSTREAM_RATE_PER_SECOND (default 10, Semrush's number; 0 = unlimited). */
  perSecond: number;
  /** SERENITY_UPSTREAM_CONCURRENT (default 10; 0 = unlimited). */
  concurrent: number;
  /** SERENITY_UPSTREAM_BACKGROUND_SLOTS (default 3): slots background work may hold at once per account and group. */
  backgroundShare: number;
  /**
   * SERENITY_UPSTREAM_WINDOW_MARGIN_MS (default 50): added to the 1 s a slot rests after its call
   * ended, for the upstream's window edges and clock granularity.
   */
  windowMarginMs: number;
}

/** Semrush's published limits (spec/gateway.md §7). */
export const DEFAULT_UPSTREAM_BUDGET: UpstreamBudgetSettings = {
  perSecond: 10,
  concurrent: 10,
  backgroundShare: 3,
  windowMarginMs: 50,
};

/** Default cadence of the pool sampler (spec/allocation.md §8: every 60 s per org with brands). */
export const DEFAULT_POOL_SAMPLE_INTERVAL_MS = 60_000;
/** Default period of the upstream reconciler per org (ADR 0016). */
export const DEFAULT_UPSTREAM_RECONCILE_INTERVAL_MS = 5 * 60_000;
/** Default grace before an orphan upstream is reclaimed (ADR 0016). */
export const DEFAULT_UPSTREAM_RECONCILE_GRACE_MS = 10 * 60_000;
/** Default grace of a shutdown before connections are cut (SERENITY_SHUTDOWN_GRACE_MS). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;
/** Default bound of a readiness check: under Kubernetes' default probe timeout of 1 s. */
export const DEFAULT_READINESS_TIMEOUT_MS = 500;
/** Default time without a request, a job or a failure after which an org is idle (ADR 0042). */
export const DEFAULT_IDLE_ORG_AFTER_MS = 3_600_000;
/** Default period of the job reconciler in each worker (ADR 0002). */
export const DEFAULT_JOB_RECONCILE_INTERVAL_MS = 60_000;

/** The periods a process that runs jobs reads once, at start (src/runtime/startWorker.ts). */
export interface WorkerSettings {
  /** SERENITY_POOL_SAMPLE_INTERVAL_MS (default 60 s; 0 keeps the default). */
  poolSampleIntervalMs: number;
  /**
   * SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS (default 5 min; 0 turns it off in this process) and
   * SERENITY_UPSTREAM_RECONCILE_GRACE_MS (default 10 min; 0 reclaims on first sight — tests only).
   */
  upstreamReconcile: { intervalMs: number; graceMs: number };
  /**
   * SERENITY_IDLE_ORG_AFTER_MS (default 1 h; 0 keeps the default) and
   * SERENITY_IDLE_ORG_CALLS_PER_HOUR (default 12; 0 = no idle pace, every org at full pace): an org
   * with no request, job or failure for `afterMs` is idle, and its background passes spend at most
   * `callsPerHour` upstream calls an hour together (docs/decisions/0042).
   */
  idleOrgs: { afterMs: number; callsPerHour: number };
  /**
   * SERENITY_JOB_RECONCILE_INTERVAL_MS (default 60 s; 0 keeps the default): how often the job
   * reconciler hands on IN_PROGRESS jobs whose lease lapsed more than SERENITY_JOB_STALL_GRACE_MS
   * ago — stall recovery takes at most grace + one period after the lease expires.
   */
  jobReconcileIntervalMs: number;
  /** SERENITY_WORKER_CONCURRENCY (default 10): job handlers running at once per process. */
  concurrency: number;
  /**
   * SERENITY_WORKER_PORT (default 8081; `off` = none; 0 = any free port): where `serenity worker`
   * answers /healthz, /readyz and /metrics, on HOST. Only that command opens it.
   */
  probePort: number | undefined;
}

/**
 * A process that runs jobs needs `concurrency` connections for its handlers plus
 * WORKER_POOL_RESERVE for itself (the LISTEN session it holds for good, and the fetch loop,
 * heartbeat and lease renewals), or its own handlers can starve the heartbeat that keeps their
 * leases. Checked when a worker starts; the message says how to fix it.
 */
export function workerPoolRule(poolSize: number, concurrency: number): string | undefined {
  const needed = concurrency + WORKER_POOL_RESERVE;
  if (poolSize >= needed) return undefined;
  return (
    `SERENITY_DB_POOL_SIZE (${poolSize}) must be at least SERENITY_WORKER_CONCURRENCY (${concurrency}) + ` +
    `${WORKER_POOL_RESERVE} = ${needed} in a process that runs jobs: raise the pool or lower the concurrency`
  );
}

/**
 * Every duration variable, boot-time or per use: each is checked once at start (a malformed value
 * fails the boot naming it), so a per-use read never meets one (src/config/flags.ts durationMs).
 */
export const DURATION_VARIABLES = [
  "SERENITY_ALLOCATION_LOCK_TIMEOUT_MS",
  "SERENITY_BRAND_LEASE_TIMEOUT_MS",
  "SERENITY_PUBLISH_LAG_MS",
  "SERENITY_PROVISION_SETTLE_BUDGET_MS",
  "SERENITY_PROVISIONING_STALE_MS",
  "SERENITY_JOB_STALL_GRACE_MS",
  "SERENITY_JOB_RETENTION_MS",
  "SERENITY_JOB_LEASE_TTL_MS",
  "SERENITY_POOL_HISTORY_RETENTION_MS",
  "SERENITY_POOL_VIEW_MAX_AGE_MS",
  "SERENITY_POOL_SAMPLE_INTERVAL_MS",
  "SERENITY_IDLE_ORG_AFTER_MS",
] as const;

/** durationMs, a malformed value rethrown as the ConfigError that names it. */
function bootDuration(
  env: FlagSource,
  variable: string,
  fallback: number,
  zero: "allowed" | "fallback" = "fallback",
): number {
  try {
    return durationMs(variable, fallback, env, { zero });
  } catch (error) {
    if (error instanceof InvalidDuration) throw new ConfigError(variable, error.problem);
    throw error;
  }
}

function databaseSettings(env: FlagSource, raw: RawEnv): DatabaseSettings {
  return {
    poolSize: raw.SERENITY_DB_POOL_SIZE,
    acquireTimeoutMs: bootDuration(env, "SERENITY_DB_ACQUIRE_TIMEOUT_MS", DEFAULT_ACQUIRE_TIMEOUT_MS),
    statementTimeoutMs: bootDuration(
      env,
      "SERENITY_DB_STATEMENT_TIMEOUT_MS",
      DEFAULT_STATEMENT_TIMEOUT_MS,
      "allowed",
    ),
    idleInTransactionTimeoutMs: bootDuration(
      env,
      "SERENITY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS",
      DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      "allowed",
    ),
    nestedAcquire: raw.SERENITY_DB_NESTED_ACQUIRE,
  };
}

function workerSettings(env: FlagSource, raw: RawEnv): WorkerSettings {
  for (const variable of DURATION_VARIABLES) bootDuration(env, variable, 0);
  return {
    poolSampleIntervalMs: bootDuration(
      env,
      "SERENITY_POOL_SAMPLE_INTERVAL_MS",
      DEFAULT_POOL_SAMPLE_INTERVAL_MS,
    ),
    upstreamReconcile: {
      intervalMs: bootDuration(
        env,
        "SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS",
        DEFAULT_UPSTREAM_RECONCILE_INTERVAL_MS,
        "allowed",
      ),
      graceMs: bootDuration(
        env,
        "SERENITY_UPSTREAM_RECONCILE_GRACE_MS",
        DEFAULT_UPSTREAM_RECONCILE_GRACE_MS,
        "allowed",
      ),
    },
    idleOrgs: {
      afterMs: bootDuration(env, "SERENITY_IDLE_ORG_AFTER_MS", DEFAULT_IDLE_ORG_AFTER_MS),
      callsPerHour: raw.SERENITY_IDLE_ORG_CALLS_PER_HOUR,
    },
    jobReconcileIntervalMs: bootDuration(
      env,
      "SERENITY_JOB_RECONCILE_INTERVAL_MS",
      DEFAULT_JOB_RECONCILE_INTERVAL_MS,
    ),
    concurrency: raw.SERENITY_WORKER_CONCURRENCY,
    probePort: raw.SERENITY_WORKER_PORT === "off" ? undefined : raw.SERENITY_WORKER_PORT,
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
    /** The whole line, when it is not "Invalid configuration: <variable> <problem>". */
    line?: string,
  ) {
    super(line ?? `Invalid configuration: ${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

function requireHttpsUnlessLoopback(variable: string, origin: string | undefined): void {
  if (!origin) return;
  const url = new URL(origin);
  if (url.protocol !== "https:" && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ConfigError(variable, "must use https (plain http is accepted only on loopback)");
  }
}

/**
 * A previous value only makes sense beside an explicit current one, and a credential-key rotation
 * needs the budget key pinned, or old and new processes would hash one bearer to two budget
 * accounts (docs/decisions/0031).
 */
function requireRotationPartners(raw: RawEnv): void {
  if (raw.SERENITY_AUTH_SECRET_PREVIOUS && !raw.SERENITY_AUTH_SECRET) {
    throw new ConfigError("SERENITY_AUTH_SECRET", "is required with SERENITY_AUTH_SECRET_PREVIOUS");
  }
  if (raw.SERENITY_CREDENTIAL_KEY_PREVIOUS?.length) {
    if (!raw.SERENITY_CREDENTIAL_KEY) {
      throw new ConfigError("SERENITY_CREDENTIAL_KEY", "is required with SERENITY_CREDENTIAL_KEY_PREVIOUS");
    }
    if (!raw.SERENITY_BUDGET_KEY) {
      throw new ConfigError(
        "SERENITY_BUDGET_KEY",
        "is required with SERENITY_CREDENTIAL_KEY_PREVIOUS (set it to the credential key the budget used before the rotation)",
      );
    }
  }
}

/** Parses the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    throw new ConfigError(variable, `is invalid: ${issue?.message ?? "unreadable value"}`);
  }
  const raw = parsed.data;
  if (isProductionMode(present)) {
    const missing = productionRefusals(present);
    if (missing.length > 0) {
      throw new ConfigError(
        missing[0]!.split(" ")[0]!,
        "is required in production",
        productionRefusalLine(present, missing),
      );
    }
  }
  requireHttpsUnlessLoopback("SEMRUSH_PROJECTS_BASE_URL", raw.SEMRUSH_PROJECTS_BASE_URL);
  requireHttpsUnlessLoopback("SEMRUSH_USERS_BASE_URL", raw.SEMRUSH_USERS_BASE_URL);
  if (raw.SEMRUSH_USERS_BASE_URL && !raw.SEMRUSH_PROJECTS_BASE_URL) {
    throw new ConfigError("SEMRUSH_PROJECTS_BASE_URL", "is required when SEMRUSH_USERS_BASE_URL is set");
  }
  if (raw.SERENITY_AUTH_JWKS_URL && (!raw.SERENITY_AUTH_ISSUER || !raw.SERENITY_AUTH_AUDIENCE)) {
    throw new ConfigError(
      "SERENITY_AUTH_ISSUER",
      "and SERENITY_AUTH_AUDIENCE are required with SERENITY_AUTH_JWKS_URL",
    );
  }
  requireRotationPartners(raw);
  const cors = parseCorsOrigins(raw.SERENITY_CORS_ORIGINS, isProductionMode(present));
  if ("problem" in cors) throw new ConfigError("SERENITY_CORS_ORIGINS", cors.problem);
  const projectsBaseUrl = raw.SEMRUSH_PROJECTS_BASE_URL;
  return {
    databaseUrl: raw.DATABASE_URL,
    dataDir: path.resolve(raw.SERENITY_DATA_DIR),
    port: raw.PORT,
    host: raw.HOST,
    metricsPort: raw.SERENITY_METRICS_PORT,
    gateway: projectsBaseUrl
      ? { projectsBaseUrl, usersBaseUrl: raw.SEMRUSH_USERS_BASE_URL ?? projectsBaseUrl }
      : undefined,
    auth: {
      secret: raw.SERENITY_AUTH_SECRET,
      previousSecret: raw.SERENITY_AUTH_SECRET_PREVIOUS,
      jwksUrl: raw.SERENITY_AUTH_JWKS_URL,
      issuer: raw.SERENITY_AUTH_ISSUER,
      audience: raw.SERENITY_AUTH_AUDIENCE,
    },
    credentialKey: raw.SERENITY_CREDENTIAL_KEY,
    previousCredentialKeys: raw.SERENITY_CREDENTIAL_KEY_PREVIOUS ?? [],
    budgetKey: raw.SERENITY_BUDGET_KEY,
    simulatorControls: raw.SERENITY_SIMULATOR_CONTROLS === "true",
    migrateOnStart: raw.SERENITY_MIGRATE_ON_START === "true",
    simulatorIndustry: raw.SERENITY_SIMULATOR_INDUSTRY?.trim() || undefined,
    syncSettleBudgetMs: raw.SERENITY_SYNC_SETTLE_BUDGET_MS,
    logLevel: raw.LOG_LEVEL,
    logFormat: raw.LOG_FORMAT,
    upstreamToken: parseOperatorTokens(raw.SERENITY_UPSTREAM_TOKEN)[0],
    upstreamTokens: parseOperatorTokens(raw.SERENITY_UPSTREAM_TOKEN),
    corsOrigins: cors.origins,
    apiRateLimits: {
      perOrg: raw.SERENITY_API_RATE_LIMIT_PER_ORG,
      perToken: raw.SERENITY_API_RATE_LIMIT_PER_TOKEN,
      windowMs: raw.SERENITY_API_RATE_LIMIT_WINDOW_MS,
      redisUrl: raw.REDIS_URL,
    },
    upstreamBudget: {
      perSecond: raw.SERENITY_UPSTREAM_RATE_PER_SECOND,
      concurrent: raw.SERENITY_UPSTREAM_CONCURRENT,
      backgroundShare: raw.SERENITY_UPSTREAM_BACKGROUND_SLOTS,
      windowMarginMs: raw.SERENITY_UPSTREAM_WINDOW_MARGIN_MS,
    },
    worker: workerSettings(env, raw),
    database: databaseSettings(env, raw),
    shutdownGraceMs: bootDuration(env, "SERENITY_SHUTDOWN_GRACE_MS", DEFAULT_SHUTDOWN_GRACE_MS),
    readinessTimeoutMs: bootDuration(env, "SERENITY_READINESS_TIMEOUT_MS", DEFAULT_READINESS_TIMEOUT_MS),
  };
}
