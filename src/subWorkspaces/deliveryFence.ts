import type { JobContext } from "../jobs/handler.ts";
import { LeaseLostError } from "../jobs/jobError.ts";
import type { Logger } from "../observability/logger.ts";

/**
 * Whether this delivery of a hop may still act. The attempt id does not tell two deliveries of the
 * same hop apart: after the handler timeout (plus a grace) the runner releases the lease while a
 * late copy may still run. So the writes that only the attempt id guards (T4, T5) and the cleanup
 * first check the delivery's signal and lease.
 */
export class DeliveryFence {
  constructor(
    private readonly ctx: Pick<JobContext, "signal" | "assertLeaseHeld">,
    private readonly log: Logger,
  ) {}

  /**
   * Throws unless this delivery may still act: its signal has not fired (a timed-out hop is on its
   * way out; the hop rethrows the signal's reason) and it still holds the job's lease
   * (`LeaseLostError`).
   */
  async assert(): Promise<void> {
    this.ctx.signal.throwIfAborted();
    await this.ctx.assertLeaseHeld();
  }

  /** `assert` for the cleanup, which never throws: unsure counts as "not ours". */
  async holds(): Promise<boolean> {
    try {
      await this.assert();
      return true;
    } catch (error) {
      if (!(error instanceof LeaseLostError) && !this.ctx.signal.aborted) {
        this.log.warn({ err: error }, "could not check the job lease; cleanup skipped");
      }
      return false;
    }
  }
}
