import { Command } from "commander";

import { registerAdmin } from "./commands/admin.ts";
import { registerAudit } from "./commands/audit.ts";
import { registerCredentials } from "./commands/credentials.ts";
import { registerMigrate } from "./commands/migrate.ts";
import { registerReconcile } from "./commands/reconcile.ts";
import { registerServe } from "./commands/serve.ts";
import { registerSimulator } from "./commands/simulator.ts";
import { registerStart } from "./commands/start.ts";
import { registerSweep } from "./commands/sweep.ts";
import { registerToken } from "./commands/token.ts";
import { registerWorker } from "./commands/worker.ts";

/** The `serenity` command: every subcommand only parses arguments and calls services. */
const program = new Command("serenity")
  .description("Serenity: AI-visibility monitoring control plane on Semrush enterprise AI workspaces")
  .showHelpAfterError()
  .enablePositionalOptions();

registerStart(program);
registerServe(program);
registerMigrate(program);
registerToken(program);
registerSimulator(program);
registerWorker(program);
registerSweep(program);
registerAudit(program);
registerReconcile(program);
registerAdmin(program);
registerCredentials(program);

await program.parseAsync(process.argv);
