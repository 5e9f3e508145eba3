import type { Logger } from "../observability/logger.ts";
import type { OperatorSettings } from "../settings/operatorSettings.ts";
import { GENERATE_MARKET_PROMPTS_JOB } from "./generationJobType.ts";

/** A worker that handles generation must have been seen this recently (spec/generation.md §2). */
export const LIVE_WORKER_WITHIN_MS = 60_000;

export type Readiness = { ready: true } | { ready: false; reason: "consumer-not-ready"; detail: string };

/**
 * Gate 2 of spec/generation.md §2, failing closed: a generation job is enqueued only while a live
 * worker that handles `generate-market-prompts` heartbeated within 60 s (recorded in PostgreSQL,
 * so it holds across processes) and the operator setting `generation.consumerReady` is not
 * `false`. Any error while checking counts as not ready.
 */
export class GenerationReadiness {
  constructor(
    private readonly deps: {
      workers: { hasLiveWorker(jobType: string, withinMs?: number): Promise<boolean> };
      settings: Pick<OperatorSettings, "flag">;
      logger: Logger;
    },
  ) {}

  async check(): Promise<Readiness> {
    try {
      if (!(await this.deps.settings.flag("generation.consumerReady"))) {
        return { ready: false, reason: "consumer-not-ready", detail: "operator-disabled" };
      }
      if (!(await this.deps.workers.hasLiveWorker(GENERATE_MARKET_PROMPTS_JOB, LIVE_WORKER_WITHIN_MS))) {
        return { ready: false, reason: "consumer-not-ready", detail: "no-live-worker" };
      }
      return { ready: true };
    } catch (error) {
      this.deps.logger.warn({ err: error }, "generation readiness check failed");
      return { ready: false, reason: "consumer-not-ready", detail: "check-failed" };
    }
  }
}
