import type { Command } from "commander";

import { signDevToken } from "../../auth/tokenVerifier.ts";
import { createApiApp, listen } from "../../runtime/httpServer.ts";
import { openRuntime } from "../../runtime/runtime.ts";
import { localAuthSecret } from "../../runtime/verifier.ts";
import { bootstrap, fail, onShutdown } from "../bootstrap.ts";

function banner(url: string, token: string): string {
  return [
    "",
    `  Serenity is running at ${url}`,
    `  API docs:      ${url}/docs`,
    "",
    "  A development token (admin, 12 h):",
    `  export SERENITY_TOKEN=${token}`,
    "",
    "  Try:",
    `  curl -s ${url}/healthz`,
    `  curl -s -H "Authorization: Bearer $SERENITY_TOKEN" ${url}/v2/orgs`,
    `  curl -s -H "Authorization: Bearer $SERENITY_TOKEN" -H "content-type: application/json" \\`,
    `       -d '{"name":"Acme"}' ${url}/v2/orgs`,
    "",
    "  Press Ctrl-C to stop (data stays in the data dir).",
    "",
  ].join("\n");
}

export function registerStart(program: Command): void {
  program
    .command("start")
    .description("all-in-one: embedded database, migrations and the API in one process")
    .action(async () => {
      const { config, logger } = bootstrap();
      const runtime = await openRuntime(config, logger).catch((error) => fail(logger, error));
      const app = await createApiApp(runtime);
      const url = await listen(app, config.port, config.host).catch(async (error) => {
        await runtime.close();
        return fail(logger, error);
      });
      const token = await signDevToken(await localAuthSecret(config), { sub: "demo-user", admin: true });
      process.stdout.write(banner(url, token));
      onShutdown(logger, async () => {
        await app.close();
        await runtime.close();
      });
    });
}
