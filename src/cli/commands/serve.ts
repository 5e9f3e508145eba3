import type { Command } from "commander";

import { createApiApp, listen } from "../../runtime/httpServer.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { bootstrap, fail, onShutdown } from "../bootstrap.ts";

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("run the API only (scale these out next to `serenity worker`)")
    .option("--with-worker", "also run jobs in this process", false)
    .action(async () => {
      const { config, logger } = bootstrap();
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      const app = await createApiApp(runtime);
      const url = await listen(app, config.port, config.host).catch((error) => fail(logger, error));
      logger.info({ url }, "serenity API listening");
      onShutdown(logger, async () => {
        await app.close();
        await runtime.close();
      });
    });
}
