import type { Command } from "commander";

import { runMigrations } from "../../db/migrate.ts";
import { sharesServerSessions, TRANSACTION_POOLING_REFUSAL } from "../../db/transactionPooling.ts";
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
        // The migration lock is a session advisory lock: it needs a session of its own.
        if (!embedded && (await sharesServerSessions(url))) throw new Error(TRANSACTION_POOLING_REFUSAL);
        await runMigrations(url);
        logger.info("migrations applied");
      } catch (error) {
        await embedded?.release();
        fail(logger, error);
      }
      await embedded?.release();
    });
}
