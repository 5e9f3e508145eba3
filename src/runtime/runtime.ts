import { budgetLimitsOf } from "../budget/budgetSettings.ts";
import { PostgresUpstreamBudget } from "../budget/postgresUpstreamBudget.ts";
import type { Config } from "../config/env.ts";
import { resolveBudgetKey, resolveCredentialKeyring } from "../credentials/credentialKey.ts";
import { type Database, openDatabase } from "../db/database.ts";
import { MIGRATIONS_FOLDER, runMigrations } from "../db/migrate.ts";
import { readJournal } from "../db/migrationJournal.ts";
import { readSchemaState } from "../db/readSchemaState.ts";
import { schemaRefusal } from "../db/schemaState.ts";
import { sharesServerSessions, TRANSACTION_POOLING_REFUSAL } from "../db/transactionPooling.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import {
  createGatewayClient,
  createUnconfiguredGatewayClient,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  type GatewayClient,
} from "../gateway/gatewayClient.ts";
import type { LockProvider } from "../locks/reentrantLock.ts";
import { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { createMetrics, type Metrics } from "../observability/metrics.ts";
import type { PoolRefreshPacing } from "../poolView/poolViews.ts";
import type { GatewayOrigins } from "./gatewayOrigins.ts";
import { createReadiness, type Readiness } from "./readiness.ts";
import { resolveDatabase } from "./resolveDatabase.ts";
import { createServices, type Services } from "./services.ts";

/**
 * The composition root shared by every process kind (start, serve, worker, CLI tools): the
 * database (embedded or external), the schema check (and migrations when asked), the event bus,
 * metrics and the services.
 */
export interface Runtime {
  config: Config;
  logger: Logger;
  clock: Clock;
  events: EventBus;
  metrics: Metrics;
  database: Database;
  databaseUrl: string;
  services: Services;
  /** `/readyz` of this process: on a connection of its own, never behind requests (readiness.ts). */
  readiness: Readiness;
  /** The upstream gateway client (spec/gateway.md); fails `configurationError` when none is set. */
  gateway: GatewayClient;
  close(): Promise<void>;
  /**
   * Ends every database connection at once and releases the embedded server: a shutdown whose
   * grace ran out calls it, so nothing stuck can keep the database server from stopping.
   */
  forceClose(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * Whether this process applies pending migrations before it starts (docs/decisions/0038):
   * `true` for `serenity start` and `serve`/`worker --migrate`; `"if-embedded"` for `serve`/`worker`
   * otherwise (an embedded database needs no deploy step); unset or `false` for everything else —
   * an operator command never changes the schema. Whatever the choice, a schema behind this
   * release, or ahead of it beyond the rolling-upgrade window, is refused in one line.
   */
  migrate?: boolean | "if-embedded";
  clock?: Clock;
  /** Overrides `config.gateway`, e.g. with the in-process simulator (see gatewayOrigins.ts). */
  gateway?: GatewayOrigins;
  /** Replaces the allocation lock's database lease: tests only (ServiceDeps, docs/decisions/0039). */
  allocationLockProvider?: LockProvider;
  /**
   * How the pool view's background refresh spreads its reads (tests on a hand-driven clock, whose
   * paced waits would otherwise wait for the test to move time); default paced.
   */
  poolRefreshPacing?: Partial<PoolRefreshPacing>;
}

/**
 * Thrown when the database is not one this release may run on (its schema, or a transaction-mode
 * pooler in front of it); its message is the one line to print.
 */
export class SchemaRefused extends Error {
  override name = "SchemaRefused";
}

async function refuseIncompatibleSchema(
  database: Database,
  logger: Logger,
  reader: "server" | "operator",
): Promise<void> {
  const state = await readSchemaState(database.pool, readJournal(MIGRATIONS_FOLDER));
  const refusal = schemaRefusal(state, reader);
  if (refusal) throw new SchemaRefused(refusal);
  if (state.kind === "ahead") {
    logger.info(
      { ahead: state.ahead },
      "database schema ahead of this release, within the rolling-upgrade window",
    );
  }
}

/** A dead holder's slot frees this long after its call would have timed out. */
const UPSTREAM_LEASE_MARGIN_MS = 5_000;

export async function openRuntime(
  config: Config,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const { url, embedded } = await resolveDatabase(config, logger);
  let database: Database | undefined;
  try {
    // An external database may sit behind PgBouncer: only its session mode keeps what we rely on.
    if (!embedded && (await sharesServerSessions(url))) throw new SchemaRefused(TRANSACTION_POOLING_REFUSAL);
    const migrate = options.migrate === "if-embedded" ? embedded !== undefined : (options.migrate ?? false);
    if (migrate) await runMigrations(url);
    const events = new EventBus();
    const settings = config.database;
    database = openDatabase(url, {
      max: settings.poolSize,
      acquireTimeoutMs: settings.acquireTimeoutMs,
      statementTimeoutMs: settings.statementTimeoutMs,
      idleInTransactionTimeoutMs: settings.idleInTransactionTimeoutMs,
      nestedAcquire: settings.nestedAcquire,
      onNestedAcquire: (error) => {
        events.emit("db.nestedAcquire", { refused: settings.nestedAcquire === "throw" });
        logger.error({ err: error }, "database connection requested inside an open transaction");
      },
    });
    await refuseIncompatibleSchema(database, logger, options.migrate ? "server" : "operator");
    const clock = options.clock ?? systemClock;
    const metrics = createMetrics(events, {
      defaultMetrics: true,
      pool: database.stats,
      // An org's pool series lasts as long as the org is not idle (docs/decisions/0042).
      orgSeries: {
        freshForMs: config.worker.idleOrgs.afterMs,
        now: () => clock.monotonicMs?.() ?? clock.now().getTime(),
      },
    });
    const origins = options.gateway ?? config.gateway;
    const credentialKey = resolveCredentialKeyring(config);
    credentialKey.catch(() => {}); // surfaces on first use (seal/exchange), not as an unhandled rejection
    // Not the credential key itself: a rotation must leave every bearer on its budget account.
    const budgetKey = resolveBudgetKey(config, credentialKey);
    budgetKey.catch(() => {});
    // One budget per (account, endpoint group) shared through this database (ADR 0019); none at
    // all when the limits are 0, so an unlimited deployment pays no round trip per call.
    const limits = budgetLimitsOf(config.upstreamBudget);
    const budget = limits
      ? new PostgresUpstreamBudget({
          db: database.db,
          clock,
          events,
          logger: logger.child({ component: "upstreamBudget" }),
          limits,
          credentialKey: budgetKey,
          leaseMs: DEFAULT_GATEWAY_TIMEOUT_MS + UPSTREAM_LEASE_MARGIN_MS,
        })
      : undefined;
    const gateway = origins
      ? createGatewayClient({ ...origins, events, logger, clock, ...(budget ? { budget } : {}) })
      : createUnconfiguredGatewayClient({ events, logger, clock });
    const services = createServices({
      db: database.db,
      clock,
      events,
      logger,
      credentialKey,
      gateway,
      syncSettleBudgetMs: config.syncSettleBudgetMs,
      upstreamToken: config.upstreamTokens,
      allocationLockProvider: options.allocationLockProvider,
      poolRefreshPacing: options.poolRefreshPacing,
    });
    // Started here, at boot, before anything listens or fetches: an enqueue never starts it.
    await services.jobs.queue.start();
    const opened = database;
    const readiness = createReadiness(url, { timeoutMs: config.readinessTimeoutMs, clock });
    return {
      config,
      logger,
      clock,
      events,
      metrics,
      database: opened,
      databaseUrl: url,
      services,
      readiness,
      gateway,
      close: async () => {
        await services.jobs.queue.stop();
        // A pool view's background refresh still reading must end before its gateway and database.
        await services.poolView.settled();
        await gateway.close();
        await readiness.close();
        await opened.close();
        await embedded?.release();
      },
      forceClose: async () => {
        await readiness.close().catch(() => {});
        await opened.forceClose();
        await embedded?.release();
      },
    };
  } catch (error) {
    await database?.close();
    await embedded?.release();
    throw error;
  }
}
