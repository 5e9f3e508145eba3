import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

import { ensureDataDirectory } from "../config/dataDirectory.ts";
import { type Config, ConfigError } from "../config/env.ts";
import type { Logger } from "../observability/logger.ts";
import { type IndustryMap, parseIndustryMap } from "../simulator/catalogue/industries/industries.ts";
import type { SimulatorSettings, SimulatorSnapshot } from "../simulator/createSimulator.ts";
import { startSimulator } from "../simulator/startSimulator.ts";
import { resolveGatewayOrigins } from "./gatewayOrigins.ts";
import { openRuntime, type Runtime, type RuntimeOptions } from "./runtime.ts";

/**
 * A runtime for the processes that serve (`start`, `serve`): when no gateway is configured, the
 * built-in simulator runs in-process on an ephemeral loopback port and the gateway client talks to
 * it over real HTTP (spec/gateway.md §1). The simulator's state is kept in the data dir between
 * runs, so the sub-workspaces a previous run created still exist upstream on the next start.
 */
export interface RuntimeWithSimulator {
  runtime: Runtime;
  /** Set when the built-in simulator runs in this process. */
  simulatorUrl: string | undefined;
  close(): Promise<void>;
  /** Cuts every database connection, releases the embedded server, stops the simulator. */
  forceClose(): Promise<void>;
}

const SIMULATOR_STATE_FILE = "simulator-state.json";

async function loadSimulatorState(file: string, logger: Logger): Promise<SimulatorSnapshot | "gold"> {
  if (!existsSync(file)) return "gold";
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as SimulatorSnapshot;
  } catch (error) {
    logger.warn({ err: error, file }, "unreadable simulator state; starting from the gold seed");
    return "gold";
  }
}

/** `SERENITY_SIMULATOR_INDUSTRY` as the simulator's `industries` setting; a bad value fails the start. */
export function simulatorIndustries(config: Pick<Config, "simulatorIndustry">): IndustryMap {
  try {
    return parseIndustryMap(config.simulatorIndustry ?? "");
  } catch (error) {
    throw new ConfigError("SERENITY_SIMULATOR_INDUSTRY", (error as Error).message);
  }
}

export interface SimulatorChoices {
  /** Settings of the built-in simulator when it runs (e.g. `start`'s request limits). */
  simulatorSettings?: Partial<SimulatorSettings>;
  /** Passed to openRuntime: whether this process migrates before it starts. */
  migrate?: RuntimeOptions["migrate"];
  /** Passed to openRuntime: a lock replacing the allocation lease (tests only). */
  allocationLockProvider?: RuntimeOptions["allocationLockProvider"];
}

export async function openRuntimeWithSimulator(
  config: Config,
  logger: Logger,
  choices: SimulatorChoices = {},
): Promise<RuntimeWithSimulator> {
  const settings = { industries: simulatorIndustries(config), ...choices.simulatorSettings };
  const stateFile = path.join(config.dataDir, SIMULATOR_STATE_FILE);
  let simulatorUrl: string | undefined;
  let saveState: () => Promise<void> = async () => {};
  const gateway = await resolveGatewayOrigins(config, async () => {
    const saved = await loadSimulatorState(stateFile, logger);
    const controls = config.simulatorControls;
    const started = await startSimulator({ seed: saved, controls, settings }).catch((error: unknown) => {
      if (saved === "gold") throw error;
      logger.warn({ err: error, file: stateFile }, "invalid simulator state; starting from the gold seed");
      return startSimulator({ seed: "gold", controls, settings });
    });
    simulatorUrl = started.url;
    saveState = async () => {
      await ensureDataDirectory(config.dataDir);
      await fs.writeFile(stateFile, JSON.stringify(started.simulator.dump()));
    };
    return { baseUrl: started.url, close: started.close };
  });
  let runtime: Runtime;
  try {
    runtime = await openRuntime(config, logger, {
      gateway: gateway.origins,
      migrate: choices.migrate,
      allocationLockProvider: choices.allocationLockProvider,
    });
  } catch (error) {
    await gateway.close();
    throw error;
  }
  return {
    runtime,
    simulatorUrl,
    close: async () => {
      await runtime.close();
      await saveState().catch((error: unknown) =>
        logger.warn({ err: error }, "could not save the simulator state"),
      );
      await gateway.close();
    },
    forceClose: async () => {
      await runtime.forceClose();
      await gateway.close();
    },
  };
}
