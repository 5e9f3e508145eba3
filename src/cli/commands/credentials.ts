import type { Command } from "commander";

import { resolveCredentialKeyring } from "../../credentials/credentialKey.ts";
import { DEFAULT_RESEAL_BATCH, resealCredentials } from "../../credentials/resealCredentials.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { bootstrap, fail } from "../bootstrap.ts";
import { operatorLogger, positiveInteger } from "../operator/options.ts";
import { formatResealSummary, resealProgressDisplay } from "../operator/resealOutput.ts";

interface ResealCliOptions {
  dryRun: boolean;
  batchSize: number;
  json: boolean;
}

export function registerCredentials(program: Command): void {
  const credentials = program.command("credentials").description("stored upstream credentials");
  credentials
    .command("reseal")
    .description(
      "move every sealed credential to the current SERENITY_CREDENTIAL_KEY (after a rotation; idempotent, safe beside running workers)",
    )
    .option("--dry-run", "count what would move; write nothing", false)
    .option("--batch-size <n>", "credentials read per page", positiveInteger, DEFAULT_RESEAL_BATCH)
    .option("--json", "print a machine-readable report", false)
    .action(async (options: ResealCliOptions) => {
      const { config } = bootstrap();
      const logger = operatorLogger(config);
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      const display = options.json ? undefined : resealProgressDisplay(process.stderr);
      try {
        const report = await resealCredentials(
          { db: runtime.database.db, keyring: await resolveCredentialKeyring(config) },
          {
            dryRun: options.dryRun,
            batchSize: options.batchSize,
            onStart: (total) => display?.start(total),
            onItem: (outcome, progress) => display?.item(outcome, progress),
          },
        );
        display?.stop();
        process.stdout.write(
          options.json ? `${JSON.stringify(report, null, 2)}\n` : formatResealSummary(report),
        );
        // Unreadable credentials are not a failure of the run, but the operator must look at them.
        if (report.unreadable > 0) process.exitCode = 2;
      } catch (error) {
        display?.stop();
        await runtime.close();
        fail(logger, error);
      }
      await runtime.close();
    });
}
