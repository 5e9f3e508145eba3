import type { CallLog } from "./http/callLog.ts";
import type { FaultRules } from "./http/faults.ts";
import type { TokenRegistry } from "./http/tokens.ts";
import type { SimulatorSettings } from "./settings.ts";
import type { SimulatorStore } from "./store/simulatorStore.ts";

/** Everything a route handler of the simulator needs; one per simulator instance. */
export interface SimContext {
  store: SimulatorStore;
  /** Mutated in place by `/__sim/settings`, so handlers always read the current values. */
  settings: SimulatorSettings;
  now(): number;
  faults: FaultRules;
  calls: CallLog;
  tokens: TokenRegistry;
  /** Seeded, so fault probabilities replay identically. */
  random(): number;
  newId(): string;
}
