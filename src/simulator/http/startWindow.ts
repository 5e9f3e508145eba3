/** The sliding window the limits are counted over (spec/gateway.md §7). */
export const WINDOW_MS = 1000;

/**
 * The start times of one key's admitted requests within the last second, oldest first: a queue
 * that forgets a start once it is `WINDOW_MS` old, so its size is what the key started in the
 * window ending now. Memory is bounded by the key's rate (at most `perSecond` entries when the
 * limit is on), never by the length of a run.
 */
export class StartWindow {
  #starts: number[] = [];
  #head = 0;

  /** Forgets the starts that left the window ending at `now`; returns how many remain. */
  countAt(now: number): number {
    while (this.#head < this.#starts.length && now - this.#starts[this.#head]! >= WINDOW_MS) this.#head += 1;
    // Compact once the forgotten prefix dominates, so the array never grows with the run.
    if (this.#head > 64 && this.#head * 2 > this.#starts.length) {
      this.#starts = this.#starts.slice(this.#head);
      this.#head = 0;
    }
    return this.#starts.length - this.#head;
  }

  push(now: number): void {
    this.#starts.push(now);
  }

  clear(): void {
    this.#starts = [];
    this.#head = 0;
  }

  /** Entries held, forgotten ones included until the next compaction (for the memory bound's test). */
  get held(): number {
    return this.#starts.length;
  }
}
