import type { Units } from "../../src/domain/allocation.ts";
import { GATEWAY_PREFIXES } from "../../src/gateway/routeTemplate.ts";
import { modelByKey } from "../../src/simulator/catalogue/aiModels.ts";
import { LANGUAGES } from "../../src/simulator/catalogue/languages.ts";
import type {
  Call,
  RateSnapshot,
  Simulator,
  SimulatorDump,
  SimulatorOptions,
} from "../../src/simulator/createSimulator.ts";
import { startSimulator } from "../../src/simulator/startSimulator.ts";

/** The gateways' path prefixes (spec/gateway.md §1), for raw calls and call-log assertions. */
export const UM = GATEWAY_PREFIXES.um;
export const PE = GATEWAY_PREFIXES.pe;

/** The live catalogue id (a UUID) of a language, by ISO code: what raw project creates send. */
export function catalogueLanguageId(code: string): string {
  const language = LANGUAGES.find((entry) => entry.code === code);
  if (!language) throw new Error(`no catalogue language "${code}"`);
  return language.id;
}

/** The live catalogue id (a UUID) of an AI model, by key: what raw model adds send. */
export function catalogueModelId(key: string): string {
  const model = modelByKey(key);
  if (!model) throw new Error(`no catalogue model "${key}"`);
  return model.id;
}

/**
 * A fault `delayMs` that the test simulator never times out: the request waits, whatever the
 * machine's load, until the test calls `release()`. Race tests hold a call with it instead of
 * betting that a real-time delay outlasts what they do meanwhile. (A value the simulator accepts,
 * one millisecond under its longest delay, and one no test asks for as a real wait.)
 */
export const HELD_UNTIL_RELEASED_MS = 599_999;

export interface TestSimulator {
  /** The origin of both gateways, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Same as `url`. */
  baseUrl: string;
  /** The in-process simulator (store, settings, …) for direct inspection. */
  simulator: Simulator;
  close(): Promise<void>;
  /** `GET /__sim/calls`. */
  calls(): Promise<Call[]>;
  /** `DELETE /__sim/calls`. */
  clearCalls(): Promise<void>;
  /** `GET /__sim/dump`. */
  dump(): Promise<SimulatorDump>;
  /** `GET /__sim/rate`: per (bearer hash, endpoint group) counts and peaks since the last clear. */
  rate(): Promise<RateSnapshot>;
  /** `DELETE /__sim/rate`. */
  clearRate(): Promise<void>;
  /** A workspace's AI allocation (its totals), read from the dump: no upstream call is logged. */
  totals(workspaceId: string): Promise<Units>;
  /** A new root workspace with its own pool (13 / 800, metered, unless told otherwise). */
  addParent(options?: {
    title?: string;
    metered?: boolean;
    projects?: number;
    prompts?: number;
  }): Promise<string>;
  /** Any control route over real HTTP: `control("/faults", rule)` POSTs to `/__sim/faults`. */
  control<T = unknown>(path: string, body?: unknown, method?: string): Promise<T>;
  /** How many requests wait on a `HELD_UNTIL_RELEASED_MS` delay right now. */
  held(): number;
  /** Lets every held request go on (each is then answered as its fault says). */
  release(): void;
}

/**
 * The simulator on an ephemeral loopback port with its controls on; every helper goes through the
 * `/__sim` routes over real HTTP, exactly as another process would.
 */
export async function startTestSimulator(options: SimulatorOptions = {}): Promise<TestSimulator> {
  const waiting: (() => void)[] = [];
  const realSleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const sleep = (ms: number) =>
    ms === HELD_UNTIL_RELEASED_MS ? new Promise<void>((resolve) => waiting.push(resolve)) : realSleep(ms);
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  const started = await startSimulator({ ...options, sleep, controls: true });
  const { url } = started;

  async function control<T>(path: string, body?: unknown, method?: string): Promise<T> {
    const verb = method ?? (body === undefined ? "GET" : "POST");
    const response = await fetch(`${url}/__sim${path.startsWith("/") ? path : `/${path}`}`, {
      method: verb,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`simulator control ${verb} ${path} answered ${response.status}: ${text}`);
    return (text === "" ? undefined : JSON.parse(text)) as T;
  }

  return {
    url,
    baseUrl: url,
    simulator: started.simulator,
    close: () => {
      release();
      return started.close();
    },
    calls: () => control<Call[]>("/calls"),
    clearCalls: () => control<void>("/calls", undefined, "DELETE"),
    dump: () => control<SimulatorDump>("/dump"),
    rate: () => control<RateSnapshot>("/rate"),
    clearRate: () => control<void>("/rate", undefined, "DELETE"),
    totals: async (workspaceId) => {
      const workspace = (await control<SimulatorDump>("/dump")).workspaces.find((w) => w.id === workspaceId);
      if (!workspace) throw new Error(`the simulator has no workspace ${workspaceId}`);
      return { projects: workspace.resources.projects.total, prompts: workspace.resources.prompts.total };
    },
    addParent: async (parent = {}) => (await control<{ id: string }>("/parents", parent)).id,
    control,
    held: () => waiting.length,
    release,
  };
}
