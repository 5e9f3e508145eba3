import type { Config } from "../config/env.ts";

/** Where the gateway client sends its calls: the PE origin and the UM origin (often the same). */
export interface GatewayOrigins {
  projectsBaseUrl: string;
  usersBaseUrl: string;
}

/** A gateway started in-process (the simulator) when none is configured. */
export interface StartedGateway {
  /** The loopback origin it listens on, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
  close(): Promise<void>;
}

export interface ResolvedGatewayOrigins {
  origins: GatewayOrigins | undefined;
  /** `simulator` when `startSimulator` ran; `none` when there is nothing to call. */
  source: "config" | "simulator" | "none";
  /** Stops what this function started (a no-op for a configured gateway). */
  close(): Promise<void>;
}

/**
 * spec/gateway.md §1: a configured gateway wins; with none, `serenity start`/`serve` pass
 * `startSimulator` and the client is pointed at the in-process simulator (still over real HTTP);
 * other process kinds pass nothing and get no gateway.
 */
export async function resolveGatewayOrigins(
  config: Pick<Config, "gateway">,
  startSimulator?: () => Promise<StartedGateway>,
): Promise<ResolvedGatewayOrigins> {
  if (config.gateway) {
    return { origins: { ...config.gateway }, source: "config", close: async () => undefined };
  }
  if (startSimulator) {
    const started = await startSimulator();
    return {
      origins: { projectsBaseUrl: started.baseUrl, usersBaseUrl: started.baseUrl },
      source: "simulator",
      close: () => started.close(),
    };
  }
  return { origins: undefined, source: "none", close: async () => undefined };
}
