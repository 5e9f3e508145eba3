import type { FastifyRateLimitStore } from "@fastify/rate-limit";
import { Redis } from "ioredis";

import type { ApiRateLimits } from "../api/rateLimits.ts";
import type { ApiRateLimitSettings } from "../config/env.ts";
import { countApiRequest } from "../db/apiRateLimits/countApiRequest.ts";
import { purgeEndedApiRateLimits } from "../db/apiRateLimits/purgeEndedApiRateLimits.ts";
import type { Db } from "../db/database.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";

/** How often one process deletes the counters of ended windows (a bounded batch each time). */
const PURGE_EVERY_MS = 60_000;

/**
 * @fastify/rate-limit's store on PostgreSQL: one guarded upsert per counted request
 * (src/db/apiRateLimits/countApiRequest.ts), so every `serve` process counts in the same rows, on
 * the database's clock (a test's `Clock.databaseTime` when it drives time by hand: a window rolls
 * over when the test moves its clock, not after a real wait). Ended windows are purged now and
 * then, off the request's path.
 */
export class PostgresRateLimitStore implements FastifyRateLimitStore {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #clock: Clock;
  #lastPurge = Date.now();

  constructor(db: Db, logger: Logger, clock: Clock = systemClock) {
    this.#db = db;
    this.#logger = logger;
    this.#clock = clock;
  }

  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
  ): void {
    countApiRequest(this.#db, { key, windowMs: timeWindow, now: this.#clock.databaseTime?.() }).then(
      ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
    if (Date.now() - this.#lastPurge >= PURGE_EVERY_MS) {
      this.#lastPurge = Date.now();
      purgeEndedApiRateLimits(this.#db).catch((error: unknown) => {
        this.#logger.warn({ err: error }, "could not purge ended API rate-limit windows");
      });
    }
  }

  child(): FastifyRateLimitStore {
    return this;
  }
}

export interface ApiRateLimitsWiring {
  limits: ApiRateLimits | undefined;
  close(): Promise<void>;
}

/** The limits of `settings` in their store: Redis when REDIS_URL is set, else PostgreSQL. */
export function apiRateLimitsOf(
  settings: ApiRateLimitSettings,
  db: Db,
  logger: Logger,
  clock: Clock = systemClock,
): ApiRateLimitsWiring {
  const { perOrg, perToken, windowMs, redisUrl } = settings;
  if (perOrg === 0 && perToken === 0) return { limits: undefined, close: async () => {} };
  if (redisUrl) {
    // A Redis that is down fails each count at once (no offline queue, one retry): the request
    // goes through unlimited rather than waiting for it.
    const client = new Redis(redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2_000,
    });
    client.on("error", (error: unknown) => logger.warn({ err: error }, "API rate-limit Redis unavailable"));
    return {
      limits: { perOrg, perToken, windowMs, store: { kind: "redis", client } },
      close: async () => {
        await client.quit().catch(() => client.disconnect());
      },
    };
  }
  return {
    limits: {
      perOrg,
      perToken,
      windowMs,
      store: { kind: "custom", store: new PostgresRateLimitStore(db, logger, clock) },
    },
    close: async () => {},
  };
}
