import { randomUUID } from "node:crypto";
import { setTimeout as sleepFor } from "node:timers/promises";

import Fastify, { type FastifyInstance } from "fastify";

import type { SimContext } from "./context.ts";
import { dumpStore, type SimulatorDump } from "./dump.ts";
import { CallLog } from "./http/callLog.ts";
import { FaultRules, seededRandom } from "./http/faults.ts";
import { installPipeline } from "./http/pipeline.ts";
import { RequestLimiter } from "./http/requestLimiter.ts";
import { PE_PREFIX, UM_PREFIX } from "./http/responses.ts";
import { TokenRegistry } from "./http/tokens.ts";
import { registerControlRoutes } from "./routes/controls.ts";
import { registerBenchmarkRoutes } from "./routes/pe/benchmarks.ts";
import { registerCatalogueRoutes } from "./routes/pe/catalogues.ts";
import { registerProjectModelRoutes } from "./routes/pe/projectModels.ts";
import { registerProjectRoutes } from "./routes/pe/projects.ts";
import { registerPromptEditRoutes } from "./routes/pe/promptEdits.ts";
import { registerPromptRoutes } from "./routes/pe/prompts.ts";
import { registerTagEditRoutes } from "./routes/pe/tagEdits.ts";
import { registerTagRoutes } from "./routes/pe/tags.ts";
import { registerResourceRoutes } from "./routes/um/resources.ts";
import { registerWorkspaceRoutes } from "./routes/um/workspaces.ts";
import { isSeedName, type SeedName, seedSnapshot } from "./seeds.ts";
import { resolveSettings, settingsPatchSchema, type SimulatorSettings } from "./settings.ts";
import { SimulatorStore } from "./store/simulatorStore.ts";
import type { SimulatorSnapshot } from "./store/snapshot.ts";

export type { SimulatorDump } from "./dump.ts";
export type { Call } from "./http/callLog.ts";
export type { FaultRuleInput } from "./http/faults.ts";
export { bearerHash, type RateLimit, type RateReport } from "./http/requestLimiter.ts";
export type { RateSnapshot } from "./routes/controls.ts";
export type { SimulatorSettings } from "./settings.ts";
export type { SimulatorStore } from "./store/simulatorStore.ts";
export type { SimulatorSnapshot } from "./store/snapshot.ts";

export interface SimulatorOptions {
  /** Default `gold`. */
  seed?: SeedName | SimulatorSnapshot;
  /** Registers the `/__sim` control routes. Default false. */
  controls?: boolean;
  settings?: Partial<SimulatorSettings>;
  /** Fastify request logging. Default false. */
  logger?: boolean;
  /**
   * Milliseconds since the epoch; drives time-mode settling, lags, the request limits' 1 s window
   * and call-log timestamps.
   */
  now?: () => number;
  /** Every wait of the simulator (`latencyMs`, fault `delayMs`). Default: a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

export interface Simulator {
  app: FastifyInstance;
  /** The live store, for direct inspection in tests. */
  store: SimulatorStore;
  /** The live settings object (mutated in place by `updateSettings` and `/__sim/settings`). */
  settings: SimulatorSettings;
  calls: CallLog;
  faults: FaultRules;
  tokens: TokenRegistry;
  limiter: RequestLimiter;
  now(): number;
  /**
   * Back to the initial seed and settings; clears calls, faults, revocations, bindings and the
   * request limits' windows and counts (requests still in flight stay counted until answered).
   */
  reset(): void;
  /** Replaces the store with a seed name or a snapshot (a dump is a valid snapshot). */
  seed(seed: SeedName | SimulatorSnapshot): void;
  dump(): SimulatorDump;
  updateSettings(patch: Partial<SimulatorSettings>): SimulatorSettings;
}

function snapshotOf(seed: unknown): unknown {
  if (typeof seed === "string") {
    if (!isSeedName(seed)) throw new Error(`unknown seed "${seed}"`);
    return seedSnapshot(seed);
  }
  // `{seed: "gold"}` is accepted as well as a snapshot.
  if (seed && typeof seed === "object" && "seed" in seed && !("workspaces" in seed)) {
    return snapshotOf((seed as { seed: unknown }).seed);
  }
  return seed;
}

/**
 * Builds the Semrush gateway simulator (spec/gateway.md §6): both gateways on one origin, one coupled
 * store, deterministic by default. The app is not listening; see `startSimulator`.
 */
export async function createSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const initialSettings = resolveSettings(options.settings);
  const initialSnapshot = snapshotOf(options.seed ?? "gold");

  const ctx: SimContext = {
    store: new SimulatorStore(),
    settings: { ...initialSettings },
    now,
    faults: new FaultRules(),
    calls: new CallLog(),
    tokens: new TokenRegistry(),
    limiter: new RequestLimiter(now()),
    sleep: options.sleep ?? ((ms) => sleepFor(ms)),
    random: seededRandom(0x5eed),
    newId: randomUUID,
  };
  ctx.store.load(initialSnapshot, now());

  const simulator: Omit<Simulator, "app"> = {
    store: ctx.store,
    settings: ctx.settings,
    calls: ctx.calls,
    faults: ctx.faults,
    tokens: ctx.tokens,
    limiter: ctx.limiter,
    now,
    reset() {
      ctx.store.load(initialSnapshot, now());
      Object.assign(ctx.settings, initialSettings);
      ctx.calls.clear();
      ctx.faults.clear();
      ctx.tokens.clear();
      ctx.limiter.reset(now());
    },
    seed(seed) {
      ctx.store.load(snapshotOf(seed), now());
    },
    dump: () => dumpStore(ctx),
    updateSettings(patch) {
      Object.assign(ctx.settings, settingsPatchSchema.parse(patch));
      return { ...ctx.settings };
    },
  };

  const app = Fastify({
    logger: options.logger ?? false,
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 10 * 1024 * 1024,
  });
  installPipeline(app, ctx);
  await app.register(
    async (um) => {
      registerWorkspaceRoutes(um, ctx);
      registerResourceRoutes(um, ctx);
    },
    { prefix: UM_PREFIX },
  );
  await app.register(
    async (pe) => {
      registerCatalogueRoutes(pe, ctx);
      registerProjectRoutes(pe, ctx);
      registerProjectModelRoutes(pe, ctx);
      registerPromptRoutes(pe, ctx);
      registerPromptEditRoutes(pe, ctx);
      registerTagRoutes(pe, ctx);
      registerTagEditRoutes(pe, ctx);
      registerBenchmarkRoutes(pe, ctx);
    },
    { prefix: PE_PREFIX },
  );
  if (options.controls) registerControlRoutes(app, ctx, simulator);
  await app.ready();
  return { app, ...simulator };
}
