/**
 * One "Serenity process" of the multi-process budget test (test/reliability/upstreamBudgetMultiProcess):
 * its own database pool, its own PostgresUpstreamBudget and gateway client, bursting calls for one
 * bearer at the upstream given in the environment, all at once. Prints one JSON line of outcomes.
 * Run with `node --import tsx test/support/budgetBurstChild.ts`.
 */
import { budgetLimitsOf } from "../../src/budget/budgetSettings.ts";
import { PostgresUpstreamBudget } from "../../src/budget/postgresUpstreamBudget.ts";
import { DEFAULT_UPSTREAM_BUDGET } from "../../src/config/env.ts";
import { openDatabase } from "../../src/db/database.ts";
import { systemClock } from "../../src/domain/clock.ts";
import { isGatewayError } from "../../src/gateway/errors.ts";
import { createGatewayClient } from "../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";

const env = process.env;
const callsPerGroup = Number(env.BURST_CALLS_PER_GROUP ?? "30");
const bearer = env.BURST_BEARER!;
const database = openDatabase(env.DATABASE_URL!, { max: 10 });
const events = new EventBus();
const logger = createLogger({ level: "silent" });
const limits = budgetLimitsOf({ ...DEFAULT_UPSTREAM_BUDGET, perSecond: Number(env.BURST_LIMIT ?? "10") });
const budget = limits
  ? new PostgresUpstreamBudget({
      db: database.db,
      clock: systemClock,
      events,
      logger,
      limits,
      credentialKey: Buffer.from(env.BURST_CREDENTIAL_KEY!, "base64"),
      leaseMs: 20_000,
    })
  : undefined;
const client = createGatewayClient({
  projectsBaseUrl: env.BURST_UPSTREAM!,
  usersBaseUrl: env.BURST_UPSTREAM!,
  events,
  logger,
  ...(budget ? { budget } : {}),
});

const calls: Promise<unknown>[] = [];
for (let i = 0; i < callsPerGroup; i += 1) {
  calls.push(client.users.getStatus(bearer, GOLD_PARENT_WORKSPACE_ID)); // workspaces
  calls.push(client.projects.listLanguages(bearer)); // projects
  // prompts: a project that does not exist answers 404 — still one prompt-tracking call.
  calls.push(client.projects.listPrompts(bearer, GOLD_PARENT_WORKSPACE_ID, "no-such-project", { limit: 1 }));
}
const outcomes: Record<string, number> = {};
for (const settled of await Promise.allSettled(calls)) {
  const key =
    settled.status === "fulfilled"
      ? "ok"
      : isGatewayError(settled.reason)
        ? settled.reason.kind
        : String((settled.reason as Error)?.name);
  outcomes[key] = (outcomes[key] ?? 0) + 1;
}
process.stdout.write(`${JSON.stringify({ outcomes })}\n`);
await client.close();
await database.close();
