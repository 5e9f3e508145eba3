import type { Clock } from "../../src/domain/clock.ts";
import { waitFor } from "./wait.ts";

/**
 * A clock tests move by hand. `sleep` resolves when `advance` passes its deadline, so code that
 * waits for a backoff or a lease runs instantly and deterministically.
 */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start = new Date("2026-01-01T00:00:00.000Z")) {
    this.#now = start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  /** Lease and expiry statements decide on this clock too, so a test moves their time by hand. */
  databaseTime(): Date {
    return new Date(this.#now);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const sleeper = { until: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        "abort",
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Moves time forward and wakes every sleeper whose deadline has passed. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.until <= this.#now);
    this.#sleepers = this.#sleepers.filter((s) => s.until > this.#now);
    for (const sleeper of due) sleeper.resolve();
  }

  /** How many sleepers are waiting (lets a test know the code under test reached its wait). */
  get pendingSleeps(): number {
    return this.#sleepers.length;
  }

  /** How long each sleeper still has to wait (ms), shortest first. */
  remainingSleeps(): number[] {
    return this.#sleepers.map((s) => s.until - this.#now).sort((a, b) => a - b);
  }

  /** The earliest deadline among the sleepers (ms since the epoch), or undefined when none waits. */
  nextWakeAt(): number | undefined {
    return this.#sleepers.length === 0 ? undefined : Math.min(...this.#sleepers.map((s) => s.until));
  }

  /**
   * Resolves once at least `count` sleepers wait: the code under test, running on real I/O,
   * reached its wait on this clock. Polls observed state; the deadline only guards against a hang.
   */
  async untilSleeping(count = 1, deadlineMs = 30_000): Promise<void> {
    await waitFor(() => this.#sleepers.length >= count, {
      timeoutMs: deadlineMs,
      what: `${count} sleeper(s) on the manual clock`,
    });
  }
}

/**
 * Moves the manual clock in steps until `done()` or `totalMs` is spent. Before every step it waits
 * until the code under test is blocked on the clock again (at least `sleepers` waits pending: one
 * per waiting acquirer, one per held lease's heartbeat), so each step lands after the previous
 * step's database round trips however slow the machine is — never on a fixed real-time pause.
 */
export async function drive(
  clock: ManualClock,
  totalMs: number,
  stepMs: number,
  { sleepers, done = () => false }: { sleepers: number; done?: () => boolean },
): Promise<void> {
  const blocked = () =>
    waitFor(() => clock.pendingSleeps >= sleepers || done(), { what: `${sleepers} sleeper(s) on the clock` });
  for (let spent = 0; spent < totalMs && !done(); spent += stepMs) {
    await blocked();
    clock.advance(stepMs);
  }
  await blocked();
}
