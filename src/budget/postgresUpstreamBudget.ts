import { randomUUID } from "node:crypto";

import type { Db } from "../db/database.ts";
import { outsideTransactionScope } from "../db/transactionScope.ts";
import { clearBudgetWaiter } from "../db/upstreamBudget/clearBudgetWaiter.ts";
import { ensureBudgetSlots } from "../db/upstreamBudget/ensureBudgetSlots.ts";
import { lowerBudgetLimit } from "../db/upstreamBudget/lowerBudgetLimit.ts";
import { releaseBudgetSlot } from "../db/upstreamBudget/releaseBudgetSlot.ts";
import { takeBudgetSlot } from "../db/upstreamBudget/takeBudgetSlot.ts";
import { type Clock, systemClock } from "../domain/clock.ts";
import {
  ADAPTIVE_INCREASE_EVERY_MS,
  type BudgetLimits,
  compareWaiters,
  type EndpointGroup,
  priorityRank,
  type UpstreamScope,
} from "../domain/upstreamBudget.ts";
import { BudgetExhausted, type BudgetPermit, type UpstreamBudget } from "../gateway/budgetPort.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { accountKeyOf, budgetHashKey } from "./accountKey.ts";

export interface PostgresUpstreamBudgetOptions {
  db: Db;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  limits: BudgetLimits;
  /**
   * The budget key (or its promise; runtime: resolveBudgetKey, SERENITY_BUDGET_KEY else the current
   * credential key): the account hash is keyed with a key derived from it.
   */
  credentialKey: Buffer | Promise<Buffer>;
  /** How long a slot stays held if its holder dies: the call timeout plus a margin. */
  leaseMs: number;
  /**
   * The time the database compares with. Production leaves it out: the database's own clock
   * decides, never two processes' clocks. Tests pass their ManualClock.
   */
  databaseTime?: () => Date;
  /** Longest sleep between two looks at a full budget (another process's release is not signalled). */
  maxPollMs?: number;
  random?: () => number;
  increaseEveryMs?: number;
}

interface Waiter {
  rank: number;
  seq: number;
  /** When the work began (the scope's `since`, else its deadline: then the deadline orders it). */
  since: number;
  deadlineAt: number;
  resolve: (permit: BudgetPermit) => void;
  reject: (reason: unknown) => void;
  done: boolean;
}

interface KeyQueue {
  accountKey: string;
  group: EndpointGroup;
  waiters: Waiter[];
  pumping: boolean;
  /** Aborted to wake the head-of-line waiter early: a local release, or a new head. */
  wake: AbortController;
  /** Priorities this process has registered as waiting in the table. */
  registered: Set<number>;
}

const MIN_POLL_MS = 5;
const DEFAULT_MAX_POLL_MS = 50;

/**
 * The shared upstream budget on PostgreSQL (docs/decisions/0019). Per process, one local queue
 * per (account, group) ordered by priority, then the work's age, then deadline, then arrival: only its head asks the database, so a
 * burst of a hundred local callers costs one poller, not a hundred. The head takes a slot in one
 * statement (takeBudgetSlot); when none may be taken it registers its priority, sleeps until the
 * earliest slot frees by itself (bounded by `maxPollMs`, jittered) or a local release wakes it,
 * and looks again. Every waiter gives up at its own deadline with `BudgetExhausted`.
 */
export class PostgresUpstreamBudget implements UpstreamBudget {
  readonly #options: PostgresUpstreamBudgetOptions;
  readonly #queues = new Map<string, KeyQueue>();
  readonly #ensured = new Set<string>();
  /** This process's identity in the waiter table. */
  readonly #waiterId = randomUUID();
  #hashKey: Promise<Buffer> | undefined;
  #seq = 0;

  constructor(options: PostgresUpstreamBudgetOptions) {
    this.#options = options;
  }

  async acquire(
    bearer: string,
    group: EndpointGroup,
    scope: UpstreamScope,
    signal?: AbortSignal,
  ): Promise<BudgetPermit> {
    signal?.throwIfAborted();
    const accountKey = accountKeyOf(await this.#hash(), bearer);
    const queue = this.#queue(accountKey, group);
    return new Promise<BudgetPermit>((resolve, reject) => {
      const waiter: Waiter = {
        rank: priorityRank(scope.priority),
        seq: (this.#seq += 1),
        since: scope.since ?? scope.deadlineAt,
        deadlineAt: scope.deadlineAt,
        resolve,
        reject,
        done: false,
      };
      const timers = new AbortController();
      const settle = (action: () => void) => {
        if (waiter.done) return;
        waiter.done = true;
        timers.abort();
        const wasHead = queue.waiters[0] === waiter;
        queue.waiters = queue.waiters.filter((w) => w !== waiter);
        action();
        if (wasHead) this.#wake(queue);
      };
      waiter.resolve = (permit) => settle(() => resolve(permit));
      waiter.reject = (reason) => settle(() => reject(reason));
      const remaining = scope.deadlineAt - this.#options.clock.now().getTime();
      if (remaining <= 0) return reject(new BudgetExhausted(group));
      this.#options.clock.sleep(remaining, timers.signal).then(
        () => waiter.reject(new BudgetExhausted(group)),
        () => {},
      );
      signal?.addEventListener("abort", () => waiter.reject(signal.reason), {
        once: true,
        signal: timers.signal,
      });
      this.#enqueue(queue, waiter);
    });
  }

  #hash(): Promise<Buffer> {
    this.#hashKey ??= Promise.resolve(this.#options.credentialKey).then(budgetHashKey);
    return this.#hashKey;
  }

  #queue(accountKey: string, group: EndpointGroup): KeyQueue {
    const id = `${group}:${accountKey}`;
    let queue = this.#queues.get(id);
    if (!queue) {
      queue = {
        accountKey,
        group,
        waiters: [],
        pumping: false,
        wake: new AbortController(),
        registered: new Set(),
      };
      this.#queues.set(id, queue);
    }
    return queue;
  }

  #enqueue(queue: KeyQueue, waiter: Waiter): void {
    // Priority first, then the oldest work, then the earliest deadline (arrival breaks ties): a
    // burst larger than the budget finishes its oldest requests and onboardings first instead of
    // starving all of them alike (compareWaiters).
    const at = queue.waiters.findIndex((w) => compareWaiters(w, waiter) > 0);
    if (at === -1) queue.waiters.push(waiter);
    else queue.waiters.splice(at, 0, waiter);
    // A new head (more urgent than the one polling) looks at once.
    if (queue.waiters[0] === waiter) this.#wake(queue);
    // The poll loop serves every waiter of the key, not just the one that started it.
    if (!queue.pumping) void outsideTransactionScope(() => this.#pump(queue));
  }

  #wake(queue: KeyQueue): void {
    queue.wake.abort();
    queue.wake = new AbortController();
  }

  async #pump(queue: KeyQueue): Promise<void> {
    queue.pumping = true;
    try {
      while (queue.waiters.length > 0) {
        const head = queue.waiters[0]!;
        const waited = await this.#tryHead(queue, head);
        if (waited) await this.#sleep(queue, waited);
      }
    } catch (error) {
      // The database failed under us: every local waiter fails with it (the caller maps it).
      for (const waiter of [...queue.waiters]) waiter.reject(error);
    } finally {
      queue.pumping = false;
      // Registrations left by waiters that gave up expire by themselves within their short TTL.
      if (queue.waiters.length === 0) queue.registered.clear();
      this.#forget(queue);
    }
  }

  /** One look for the head: resolves it (0) or says how long to sleep before the next look. */
  async #tryHead(queue: KeyQueue, head: Waiter): Promise<number> {
    const { limits } = this.#options;
    const key = { accountKey: queue.accountKey, group: queue.group };
    const ensuredId = `${queue.group}:${queue.accountKey}:${limits.slots}`;
    if (!this.#ensured.has(ensuredId)) {
      await ensureBudgetSlots(this.#options.db, key, limits.slots);
      this.#ensured.add(ensuredId);
    }
    const holder = randomUUID();
    const register = queue.registered.has(head.rank);
    const taken = await takeBudgetSlot(this.#options.db, {
      key,
      holder,
      priority: head.rank,
      slots: limits.slots,
      windowMs: limits.windowMs,
      leaseMs: this.#options.leaseMs,
      backgroundShare: limits.backgroundShare,
      increaseEveryMs: this.#increaseEveryMs(),
      ...(register ? { waiter: { id: this.#waiterId, ttlMs: this.#waiterTtlMs() } } : {}),
      now: this.#options.databaseTime?.(),
    });
    if (taken.slot !== null) {
      const permit = this.#permit(queue, taken.slot, holder);
      this.#options.events.emit("upstream.adaptiveLimit", { group: queue.group, slots: taken.effective });
      if (head.done) {
        // The head gave up while the statement ran: hand the slot straight back.
        await permit.release();
        return 0;
      }
      head.resolve(permit);
      await this.#unregisterIfLast(queue, head.rank);
      return 0;
    }
    if (taken.slotCount < limits.slots) {
      this.#ensured.delete(ensuredId);
      return 0;
    }
    if (!register) {
      // Register at once (next look) so lower priorities elsewhere leave this waiter a slot.
      queue.registered.add(head.rank);
      return MIN_POLL_MS;
    }
    const maxPoll = this.#options.maxPollMs ?? DEFAULT_MAX_POLL_MS;
    const jitter = 1 + 0.2 * (this.#options.random ?? Math.random)();
    return Math.round(Math.min(maxPoll, Math.max(MIN_POLL_MS, taken.retryInMs)) * jitter);
  }

  /**
   * Between two looks. The slots' times are the database's, so without an injected database time
   * the pause is real time too; deadlines always follow the injected clock.
   */
  async #sleep(queue: KeyQueue, ms: number): Promise<void> {
    const clock = this.#options.databaseTime ? this.#options.clock : systemClock;
    await clock.sleep(ms, queue.wake.signal).catch(() => {});
  }

  async #unregisterIfLast(queue: KeyQueue, rank: number): Promise<void> {
    if (!queue.registered.has(rank) || queue.waiters.some((w) => w.rank === rank)) return;
    queue.registered.delete(rank);
    await clearBudgetWaiter(this.#options.db, {
      key: { accountKey: queue.accountKey, group: queue.group },
      waiter: this.#waiterId,
      priority: rank,
    });
  }

  #permit(queue: KeyQueue, slot: number, holder: string): BudgetPermit {
    const { db, limits } = this.#options;
    const key = { accountKey: queue.accountKey, group: queue.group };
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await releaseBudgetSlot(db, { key, slot, holder, now: this.#options.databaseTime?.() });
        // A local waiter may take it once its window passed: let the head look again (the queue
        // object may have been forgotten and made anew since this slot was taken).
        const current = this.#queues.get(`${queue.group}:${queue.accountKey}`);
        if (current) this.#wake(current);
      },
      reportThrottled: async () => {
        const lowered = await lowerBudgetLimit(db, {
          key,
          slots: limits.slots,
          windowMs: limits.windowMs,
          increaseEveryMs: this.#increaseEveryMs(),
          now: this.#options.databaseTime?.(),
        });
        if (lowered === undefined) return;
        this.#options.events.emit("upstream.adaptiveLimit", { group: queue.group, slots: lowered });
        this.#options.logger.warn(
          { group: queue.group, slots: lowered },
          "upstream answered 429 despite the budget; the account's adaptive limit was lowered",
        );
      },
    };
  }

  #forget(queue: KeyQueue): void {
    if (queue.waiters.length > 0 || queue.registered.size > 0) return;
    this.#queues.delete(`${queue.group}:${queue.accountKey}`);
  }

  #increaseEveryMs(): number {
    return this.#options.increaseEveryMs ?? ADAPTIVE_INCREASE_EVERY_MS;
  }

  #waiterTtlMs(): number {
    return 4 * (this.#options.maxPollMs ?? DEFAULT_MAX_POLL_MS) + 500;
  }
}
