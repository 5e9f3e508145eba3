import type { Command } from "commander";

import { deleteQuarantined } from "../../operations/deleteQuarantined.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { upstreamReconcilerDepsOf } from "../../runtime/upstreamReconcilerOf.ts";
import { bootstrap, fail } from "../bootstrap.ts";
import { operatorLogger, upstreamToken } from "../operator/options.ts";

export function registerReconcile(program: Command): void {
  program
    .command("reconcile")
    .description(
      "operator actions of the upstream reconciler: --delete <id> deletes one quarantined orphan (see serenity audit)",
    )
    .requiredOption("--delete <id>", "the upstream id of a quarantined project or sub-workspace to delete")
    .option("--token-file <path>", "read the upstream token from this file (else SERENITY_UPSTREAM_TOKEN)")
    .action(async (options: { delete: string; tokenFile?: string }) => {
      const { config } = bootstrap();
      const logger = operatorLogger(config);
      const bearer = await upstreamToken(options.tokenFile).catch((error) => fail(logger, error));
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      try {
        const deleted = await deleteQuarantined(upstreamReconcilerDepsOf(runtime), {
          bearer,
          upstreamId: options.delete,
        });
        process.stdout.write(
          `deleted quarantined ${deleted.kind} ${deleted.upstreamId} (org ${deleted.orgId}, workspace ${deleted.workspaceId})\n`,
        );
      } catch (error) {
        await runtime.close();
        fail(logger, error);
      }
      await runtime.close();
    });
}
