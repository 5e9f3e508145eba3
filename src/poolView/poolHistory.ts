import type { Principal } from "../auth/principal.ts";
import { durationMs, type FlagSource } from "../config/flags.ts";
import type { Db } from "../db/database.ts";
import { insertPoolSample } from "../db/poolSamples/insertPoolSample.ts";
import { latestPoolSamples } from "../db/poolSamples/latestPoolSamples.ts";
import { listPoolSamples } from "../db/poolSamples/listPoolSamples.ts";
import type { PoolSampleRow } from "../db/poolSamples/poolSampleRow.ts";
import type { Clock } from "../domain/clock.ts";
import type { Logger } from "../observability/logger.ts";
import type { OrgService } from "../orgs/orgService.ts";
import type { PoolDimension } from "./poolView.ts";

/** Samples are kept this long by default (`SERENITY_POOL_HISTORY_RETENTION_MS`). */
export const DEFAULT_POOL_HISTORY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** An unchanged pool is recorded at most this often per org (a changed one at once). */
export const UNCHANGED_SAMPLE_SPACING_MS = 60_000;
/** `GET …/pool-history` defaults: the last 24 hours, at most 500 samples (2,000 when asked). */
export const POOL_HISTORY_DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;
export const POOL_HISTORY_DEFAULT_LIMIT = 500;
export const POOL_HISTORY_MAX_LIMIT = 2_000;

export interface PoolSnapshot {
  projects: PoolDimension;
  prompts: PoolDimension;
}

export type PoolSample = PoolSnapshot & { sampledAt: Date };

export interface PoolHistoryPage {
  /** Oldest first (the order a chart draws them in). */
  items: PoolSample[];
  /** The start of the window that was read. */
  since: Date;
  retentionMs: number;
}

export interface PoolSummary extends PoolSample {
  orgId: string;
}

/** What `AllocationService` calls after every fresh pool read (the sampler's and the API's). */
export interface PoolHistoryRecorder {
  record(orgId: string, pool: PoolSnapshot | null, sampledAt: Date): Promise<void>;
}

export interface PoolHistoryDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  orgs: OrgService;
  env?: FlagSource;
}

/**
 * Whether a fresh pool read is worth a row: always when a number moved since the last recorded
 * sample, else once per spacing, so a flat line still has points and a console refreshing every few
 * seconds does not write one row per refresh.
 */
export function isSampleWorthRecording(
  last: { key: string; at: number } | undefined,
  next: { key: string; at: number },
  spacingMs: number = UNCHANGED_SAMPLE_SPACING_MS,
): boolean {
  if (!last) return true;
  return last.key !== next.key || next.at - last.at >= spacingMs;
}

function keyOf(pool: PoolSnapshot): string {
  const { projects: a, prompts: b } = pool;
  return [a.used, a.drafted, a.total, a.free, b.used, b.drafted, b.total, b.free].join(",");
}

function sampleOf(row: PoolSampleRow): PoolSample {
  return { projects: row.projects, prompts: row.prompts, sampledAt: row.sampledAt };
}

/**
 * The pool over time (the console's "pool free" line chart). Every fresh read of an org's pool —
 * the periodic sampler's and the pool views the API builds on a cache miss — offers a sample; a
 * sample is written when the pool changed or a minute passed. Samples older than the retention are
 * never listed, and the job reconciler deletes them for every org (expiredSamplesStep.ts). Recording is best effort: a failed write is logged and never fails
 * the read that offered it.
 */
export class PoolHistory implements PoolHistoryRecorder {
  readonly #deps: PoolHistoryDeps;
  /** The last sample this process wrote per org (another process may write its own: harmless). */
  readonly #lastRecorded = new Map<string, { key: string; at: number }>();

  constructor(deps: PoolHistoryDeps) {
    this.#deps = deps;
  }

  retentionMs(): number {
    return durationMs(
      "SERENITY_POOL_HISTORY_RETENTION_MS",
      DEFAULT_POOL_HISTORY_RETENTION_MS,
      this.#deps.env ?? process.env,
    );
  }

  async record(orgId: string, pool: PoolSnapshot | null, sampledAt: Date): Promise<void> {
    if (!pool) return;
    const next = { key: keyOf(pool), at: sampledAt.getTime() };
    if (!isSampleWorthRecording(this.#lastRecorded.get(orgId), next)) return;
    this.#lastRecorded.set(orgId, next);
    const { db, logger } = this.#deps;
    try {
      await insertPoolSample(db, { orgId, projects: pool.projects, prompts: pool.prompts, sampledAt });
    } catch (error) {
      this.#lastRecorded.delete(orgId);
      logger.warn({ err: error, orgId }, "pool history: could not record a sample");
    }
  }

  /** An org's samples in a window (`GET …/serenity/pool-history`): the newest `limit`, oldest first. */
  async list(
    principal: Principal,
    orgId: string,
    query: { since?: Date; limit?: number } = {},
  ): Promise<PoolHistoryPage> {
    await this.#deps.orgs.getAccessible(principal, orgId);
    const now = this.#deps.clock.now().getTime();
    const retentionMs = this.retentionMs();
    const earliest = now - retentionMs;
    const asked = query.since?.getTime() ?? now - POOL_HISTORY_DEFAULT_WINDOW_MS;
    const since = new Date(Math.max(asked, earliest));
    const limit = Math.min(
      Math.max(1, Math.trunc(query.limit ?? POOL_HISTORY_DEFAULT_LIMIT)),
      POOL_HISTORY_MAX_LIMIT,
    );
    const rows = await listPoolSamples(this.#deps.db, { orgId, since, limit });
    return { items: rows.reverse().map(sampleOf), since, retentionMs };
  }

  /** The newest sample of every org the caller may access (`GET /v2/serenity/pool-summaries`). */
  async latest(principal: Principal): Promise<PoolSummary[]> {
    const rows = await latestPoolSamples(this.#deps.db, principal.isAdmin ? undefined : principal.orgIds);
    return rows.map((row) => ({ orgId: row.orgId, ...sampleOf(row) }));
  }
}
