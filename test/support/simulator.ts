import type { Units } from "../../src/domain/allocation.ts";
import { GATEWAY_PREFIXES } from "../../src/gateway/routeTemplate.ts";
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
}

/**
 * The simulator on an ephemeral loopback port with its controls on; every helper goes through the
 * `/__sim` routes over real HTTP, exactly as another process would.
 */
export async function startTestSimulator(options: SimulatorOptions = {}): Promise<TestSimulator> {
  const started = await startSimulator({ ...options, controls: true });
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
    close: started.close,
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
  };
}
