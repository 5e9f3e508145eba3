/**
 * A thin client for the simulator's `/__sim` control routes (spec/gateway.md §6), used over real
 * HTTP exactly as an operator or another process would.
 */
export interface SimCall {
  method: string;
  path: string;
  status: number;
  at: string;
  group: "workspaces" | "projects" | "promptTracking" | null;
  throttled: boolean;
}

/** `GET /__sim/rate` (spec/gateway.md §7): the simulator's count per (bearer hash, endpoint group). */
export interface SimRate {
  since: string;
  rateLimit: { perSecond: number; concurrent: number };
  keys: {
    bearer: string;
    group: "workspaces" | "projects" | "promptTracking";
    started: number;
    throttled: number;
    perSecondPeak: number;
    inFlightPeak: number;
    inFlight: number;
  }[];
}

export interface SimFaultRule {
  match: { method?: string; pathPattern: string };
  action: {
    status?: number;
    body?: unknown;
    contentType?: string;
    delayMs?: number;
    afterCommit504?: boolean;
    dropConnection?: boolean;
  };
  times?: number;
}

export class SimControls {
  constructor(readonly baseUrl: string) {}

  async #send(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}/__sim${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`simulator control ${method} ${path} answered ${response.status}: ${text}`);
    return text === "" ? undefined : (JSON.parse(text) as unknown);
  }

  reset = () => this.#send("POST", "/reset");
  addFault = (rule: SimFaultRule) => this.#send("POST", "/faults", rule);
  clearFaults = () => this.#send("DELETE", "/faults");
  calls = async () => (await this.#send("GET", "/calls")) as SimCall[];
  clearCalls = () => this.#send("DELETE", "/calls");
  rate = async () => (await this.#send("GET", "/rate")) as SimRate;
  clearRate = () => this.#send("DELETE", "/rate");
  revokeToken = (token: string) => this.#send("POST", "/tokens/revoke", { token });
  settings = (patch: Record<string, unknown>) => this.#send("POST", "/settings", patch);
  quota = (body: { workspaceId: string; projects?: unknown; prompts?: unknown; metered?: boolean }) =>
    this.#send("POST", "/quota", body);
}
