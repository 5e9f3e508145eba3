import { type Command, Option } from "commander";

import { runAudit } from "../../operations/audit.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { promptCounterOf, upstreamReconcilerOf } from "../../runtime/upstreamReconcilerOf.ts";
import { bootstrap, fail } from "../bootstrap.ts";
import { AUDIT_FORMATS, type AuditFormat, formatAudit } from "../operator/auditOutput.ts";
import { idList, operatorLogger, upstreamToken } from "../operator/options.ts";

export function registerAudit(program: Command): void {
  program
    .command("audit")
    .description(
      "read-only: allocated units no usage needs, per brand and per org pool, and orphans upstream",
    )
    .option("--org-ids <ids>", "only these orgs (comma-separated)", idList)
    .addOption(new Option("--format <format>", "output format").choices(AUDIT_FORMATS).default("table"))
    .option("--token-file <path>", "read the upstream token from this file (else SERENITY_UPSTREAM_TOKEN)")
    .action(async (options: { orgIds?: string[]; format: AuditFormat; tokenFile?: string }) => {
      const { config } = bootstrap();
      const logger = operatorLogger(config);
      const bearer = await upstreamToken(options.tokenFile).catch((error) => fail(logger, error));
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      const reconciler = upstreamReconcilerOf(runtime);
      try {
        const report = await runAudit(
          {
            db: runtime.database.db,
            logger,
            poolView: runtime.services.poolView,
            orphans: {
              observe: (org, token) => reconciler.observe(org, token),
              prompts: promptCounterOf(runtime),
            },
          },
          { bearer, orgIds: options.orgIds, now: () => runtime.clock.now() },
        );
        process.stdout.write(formatAudit(report, options.format));
        if (report.orgs.some((org) => org.error !== undefined)) process.exitCode = 1;
      } catch (error) {
        await runtime.close();
        fail(logger, error);
      }
      await runtime.close();
    });
}
