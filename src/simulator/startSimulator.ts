import { createSimulator, type Simulator, type SimulatorOptions } from "./createSimulator.ts";

export interface StartedSimulator {
  /** `http://127.0.0.1:<port>`, the origin of both gateways. */
  url: string;
  simulator: Simulator;
  close(): Promise<void>;
}

/** Builds the simulator and listens (default: an ephemeral port on loopback). */
export async function startSimulator(
  options: SimulatorOptions & { port?: number; host?: string } = {},
): Promise<StartedSimulator> {
  const { port = 0, host = "127.0.0.1", ...simulatorOptions } = options;
  const simulator = await createSimulator(simulatorOptions);
  await simulator.app.listen({ port, host });
  const address = simulator.app.server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return { url: `http://${shownHost}:${actualPort}`, simulator, close: () => simulator.app.close() };
}
