import type { DatabaseTime } from "../databaseTime.ts";

/** How long a bound stays trusted, and the time a test drives by hand (production: undefined). */
export interface PoolFreeBoundWindow {
  ttlMs: number;
  now: DatabaseTime;
}
