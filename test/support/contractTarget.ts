import type { Clock } from "../../src/domain/clock.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { SimControls } from "./simControls.ts";
import { startTestSimulator } from "./simulator.ts";

/**
 * What the contract suite runs against: the in-process simulator over real HTTP (always), or a
 * real gateway when SEMRUSH_CONTRACT_BASE_URL and SEMRUSH_CONTRACT_TOKEN are set.
 */
export interface ContractTarget {
  name: string;
  baseUrl: string;
  token: string;
  /** A parent workspace the token may create sub-workspaces under. */
  parentWorkspaceId: string;
  /** The simulator's controls; undefined against a real gateway (fault-driven cases are skipped there). */
  sim: SimControls | undefined;
  /** How long to wait between polls of an eventually consistent read (0 for the simulator's read budgets). */
  pollDelayMs: number;
  close(): Promise<void>;
}

export const REAL_GATEWAY = {
  baseUrl: process.env.SEMRUSH_CONTRACT_BASE_URL,
  token: process.env.SEMRUSH_CONTRACT_TOKEN,
  parentWorkspaceId: process.env.SEMRUSH_CONTRACT_PARENT_WORKSPACE_ID,
};

export const realGatewayConfigured = Boolean(REAL_GATEWAY.baseUrl && REAL_GATEWAY.token);

export async function simulatorTarget(): Promise<ContractTarget> {
  const simulator = await startTestSimulator({ seed: "gold" });
  return {
    name: "simulator",
    baseUrl: simulator.baseUrl,
    token: "contract-user-token",
    parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
    sim: new SimControls(simulator.baseUrl),
    pollDelayMs: 0,
    close: () => simulator.close(),
  };
}

export async function realGatewayTarget(): Promise<ContractTarget> {
  const { baseUrl, token, parentWorkspaceId } = REAL_GATEWAY;
  if (!baseUrl || !token)
    throw new Error("SEMRUSH_CONTRACT_BASE_URL and SEMRUSH_CONTRACT_TOKEN are required");
  if (!parentWorkspaceId) {
    throw new Error(
      "SEMRUSH_CONTRACT_PARENT_WORKSPACE_ID is required to run the contract suite against a real gateway",
    );
  }
  return {
    name: "real gateway",
    baseUrl,
    token,
    parentWorkspaceId,
    sim: undefined,
    pollDelayMs: 2_000,
    close: async () => undefined,
  };
}

/** Sleeps resolve at once and are recorded: the client's retry waits, without real waiting. */
export class RecordingClock implements Clock {
  readonly waits: number[] = [];
  now(): Date {
    return new Date();
  }
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
  }
}
