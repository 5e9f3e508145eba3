import type { CallLog } from "./http/callLog.ts";
import type { FaultRules } from "./http/faults.ts";
import type { RequestLimiter } from "./http/requestLimiter.ts";
import type { TokenRegistry } from "./http/tokens.ts";
import type { SimulatorSettings } from "./settings.ts";
import type { SimulatorStore } from "./store/simulatorStore.ts";

/** Everything a route handler of the simulator needs; one per simulator instance. */
export interface SimContext {
  store: SimulatorStore;
  /** Mutated in place by `/__sim/settings`, so handlers always read the current values. */
  settings: SimulatorSettings;
  now(): number;
  /** Every wait the simulator makes (latency, fault delays), injectable like `now`. */
  sleep(ms: number): Promise<void>;
  faults: FaultRules;
  calls: CallLog;
  tokens: TokenRegistry;
  /** Semrush's request limits (settings `rateLimit`) and the simulator's own count of requests. */
  limiter: RequestLimiter;
  /** Seeded, so fault probabilities replay identically. */
  random(): number;
  newId(): string;
}
