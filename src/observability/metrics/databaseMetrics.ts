import { Counter, Gauge, type Registry } from "prom-client";

import type { EventBus } from "../events.ts";

/** The pool as the gauges read it at each scrape (src/db/database.ts `Database.stats`). */
export interface PoolStatsSource {
  (): { checkedOut: number; idle: number; waiting: number; max: number };
}

/**
 * The connection pool of this process: connections by state, callers waiting for one, and
 * checkouts made from inside an open transaction (each a latent deadlock; should stay 0).
 */
export function registerDatabaseMetrics(registry: Registry, events: EventBus, stats?: PoolStatsSource): void {
  if (stats) {
    new Gauge({
      name: "serenity_db_pool_connections",
      help: "Connections of this process's database pool, by state (checked_out, idle) and its size (max).",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        const now = stats();
        this.set({ state: "checked_out" }, now.checkedOut);
        this.set({ state: "idle" }, now.idle);
        this.set({ state: "max" }, now.max);
      },
    });
    new Gauge({
      name: "serenity_db_pool_waiters",
      help: "Callers of this process waiting for a free database connection.",
      registers: [registry],
      collect() {
        this.set(stats().waiting);
      },
    });
  }
  const nested = new Counter({
    name: "serenity_db_nested_acquires_total",
    help: "Connections asked of the pool from inside an open transaction, by whether they were refused.",
    labelNames: ["refused"],
    registers: [registry],
  });
  events.on("db.nestedAcquire", ({ refused }) => nested.inc({ refused: String(refused) }));
}
