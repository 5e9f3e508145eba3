import type { Command } from "commander";

import { ServiceError } from "../../domain/errors.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { OPERATOR_SETTINGS } from "../../settings/operatorSettings.ts";
import { bootstrap, fail } from "../bootstrap.ts";

/**
 * `serenity admin set <key> <value>`: flips an operator setting for every process sharing the
 * database (they pick it up within their 60 s cache). Known keys only, e.g.
 * `serenity admin set generation.consumerReady false` to stop new generation jobs.
 */
export function registerAdmin(program: Command): void {
  const admin = program.command("admin").description("operator settings shared by every process");
  admin
    .command("set <key> <value>")
    .description(`set an operator setting (${Object.keys(OPERATOR_SETTINGS).join(", ")})`)
    .action(async (key: string, value: string) => {
      const { config, logger } = bootstrap();
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      try {
        const set = await runtime.services.generation.settings.set(key, value);
        process.stdout.write(`${set.key} = ${String(set.value)}\n`);
      } catch (error) {
        await runtime.close();
        if (error instanceof ServiceError) {
          process.stderr.write(`${error.message}\n`);
          process.exit(2);
        }
        return fail(logger, error);
      }
      await runtime.close();
    });
}
