import { readFile } from "node:fs/promises";

import { type Command, InvalidArgumentError } from "commander";

import type { RateLimit } from "../../simulator/createSimulator.ts";
import { isSeedName, seedSnapshot } from "../../simulator/seeds.ts";
import { settingsPatchSchema } from "../../simulator/settings.ts";
import { startSimulator } from "../../simulator/startSimulator.ts";
import { type SimulatorSnapshot, snapshotSchema } from "../../simulator/store/snapshot.ts";
import { bootstrap, fail, onShutdown } from "../bootstrap.ts";

interface SimulatorCommandOptions {
  port: number;
  host: string;
  seed: string;
  metered: boolean;
  controls: boolean;
  settings?: string;
}

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError("must be a port number");
  return Number(value);
}

/** A seed name, or the path of a JSON snapshot (a saved `/__sim/dump` works). */
async function loadSeed(seed: string): Promise<SimulatorSnapshot> {
  if (isSeedName(seed)) return seedSnapshot(seed);
  const text = await readFile(seed, "utf8").catch(() => {
    throw new Error(`--seed must be gold, unmetered, empty or a readable JSON snapshot file (got "${seed}")`);
  });
  return snapshotSchema.parse(JSON.parse(text));
}

function describeRateLimit(limit: RateLimit): string {
  if (limit.perSecond === 0 && limit.concurrent === 0) return "off";
  const rate = limit.perSecond === 0 ? "no rate limit" : `${limit.perSecond} per second`;
  const concurrent = limit.concurrent === 0 ? "no concurrency limit" : `${limit.concurrent} in flight`;
  return `${rate}, ${concurrent}, per bearer and endpoint group`;
}

export function registerSimulator(program: Command): void {
  program
    .command("simulator")
    .description("run the Semrush gateway simulator as a standalone server (a development tool)")
    .option("--port <port>", "listen port", port, 4010)
    .option("--host <host>", "listen address", "127.0.0.1")
    .option("--seed <seed>", "gold | unmetered | empty | path to a JSON snapshot", "gold")
    .option("--metered", "turn metering on for every root workspace of the seed", false)
    .option("--no-controls", "disable the /__sim control routes (on by default for this dev tool)")
    .option(
      "--settings <json>",
      `simulator settings as JSON, e.g. '{"latencyMs":20,"settleReads":0}'; Semrush's request limits: '{"rateLimit":{"perSecond":10,"concurrent":10}}'`,
    )
    .action(async (options: SimulatorCommandOptions) => {
      const { logger } = bootstrap();
      try {
        const snapshot = await loadSeed(options.seed);
        if (options.metered) {
          for (const workspace of snapshot.workspaces) {
            if (!workspace.parent_id) workspace.limits_enabled = { ai: true };
          }
        }
        const settings = options.settings ? settingsPatchSchema.parse(JSON.parse(options.settings)) : {};
        const started = await startSimulator({
          seed: snapshot,
          controls: options.controls,
          settings,
          port: options.port,
          host: options.host,
        });
        const roots = snapshot.workspaces
          .filter((workspace) => !workspace.parent_id)
          .map((workspace) => workspace.id);
        process.stdout.write(
          [
            "",
            `  Semrush gateway simulator at ${started.url}`,
            `    User Manager:   ${started.url}/enterprise/users/api`,
            `    Project Engine: ${started.url}/enterprise/projects/api`,
            `  Seed: ${options.seed}; root workspaces: ${roots.join(", ") || "(none)"}`,
            options.controls
              ? `  Controls: ${started.url}/__sim (calls, dump, faults, rate, …)`
              : "  Controls: off",
            `  Request limits: ${describeRateLimit(started.simulator.settings.rateLimit)}`,
            "",
            "",
          ].join("\n"),
        );
        onShutdown(logger, started.close);
      } catch (error) {
        fail(logger, error);
      }
    });
}
