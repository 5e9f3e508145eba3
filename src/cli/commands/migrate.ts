import type { Command } from "commander";

import { runMigrations } from "../../db/migrate.ts";
import { resolveDatabase } from "../../runtime/resolveDatabase.ts";
import { bootstrap, fail } from "../bootstrap.ts";

export function registerMigrate(program: Command): void {
  program
    .command("migrate")
    .description("apply the committed database migrations and exit (safe to run from many processes at once)")
    .action(async () => {
      const { config, logger } = bootstrap();
      const { url, embedded } = await resolveDatabase(config, logger).catch((error) => fail(logger, error));
      try {
        await runMigrations(url);
        logger.info("migrations applied");
      } catch (error) {
        await embedded?.release();
        fail(logger, error);
      }
      await embedded?.release();
    });
}
