import type { Command } from "commander";

import { signDevToken } from "../../auth/tokenVerifier.ts";
import { SEMRUSH_PUBLISHED_LIMITS } from "../../domain/endpointGroup.ts";
import { createApiApp, listen } from "../../runtime/httpServer.ts";
import { openRuntimeWithSimulator } from "../../runtime/runtimeWithSimulator.ts";
import { startWorker } from "../../runtime/startWorker.ts";
import { startTracing } from "../../runtime/tracing.ts";
import { startUpstreamHealth } from "../../runtime/upstreamHealth.ts";
import { localAuthSecret } from "../../runtime/verifier.ts";
import type { RateLimit } from "../../simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../simulator/seeds.ts";
import { UNLIMITED } from "../../simulator/settings.ts";
import { bootstrap, fail, onShutdown } from "../bootstrap.ts";

/**
 * The one switch for the request limits of the demo's built-in simulator: `true` runs it with
 * Semrush's published numbers (10 per second and 10 in flight per bearer and endpoint group,
 * spec/gateway.md §7), so the demo meets the same wall as production; `false` runs it unlimited.
 *
 * On: Serenity paces its own calls with the shared upstream budget (docs/decisions/0019), so the
 * demo, and test/e2e/readmeWalkthrough.test.ts which runs it, meet the limits production meets.
 * (Before the budget, the walk-through met 14–16 throttled calls per run and sometimes a 502.)
 */
export const START_MEETS_SEMRUSH_LIMITS = true;

const START_SIMULATOR_RATE_LIMIT: RateLimit = START_MEETS_SEMRUSH_LIMITS
  ? SEMRUSH_PUBLISHED_LIMITS
  : UNLIMITED;

interface Demo {
  orgId: string;
  parentWorkspaceId: string;
  simulatorUrl: string;
}

function limitsLine(limit: RateLimit): string {
  if (limit.perSecond === 0 && limit.concurrent === 0)
    return "off in the demo (Semrush's: 10/s and 10 in flight per account and endpoint group)";
  return `the simulator enforces Semrush's request limits (${limit.perSecond}/s, ${limit.concurrent} in flight per account and endpoint group)`;
}

function banner(url: string, token: string, demo: Demo | undefined): string {
  const auth = `-H "Authorization: Bearer $SERENITY_TOKEN"`;
  const json = `-H "content-type: application/json"`;
  const lines = [
    "",
    `  Open the console: ${url}/  (in a browser; sign in with the token below)`,
    "",
    `  Serenity is running at ${url}`,
    `  API docs:      ${url}/docs`,
  ];
  if (demo) {
    lines.push(
      `  Semrush:       built-in simulator at ${demo.simulatorUrl} (gold pool: 13 projects / 800 prompts)`,
      `  Limits:        ${limitsLine(START_SIMULATOR_RATE_LIMIT)}`,
      `  Demo org:      ${demo.orgId} (parent workspace ${demo.parentWorkspaceId})`,
    );
  }
  lines.push("", "  A development token (admin, 12 h):", `  export SERENITY_TOKEN=${token}`, "", "  Try:");
  if (demo) {
    const brands = `${url}/v2/orgs/${demo.orgId}/brands`;
    lines.push(
      `  curl -s ${auth} ${url}/v2/orgs/${demo.orgId}`,
      `  curl -s ${auth} ${json} -d '{"name":"Lumiere","domain":"lumiere.example","semrushMarket":{"market":"US","languageCode":"en"}}' ${brands}`,
      `  curl -s ${auth} ${url}/v2/orgs/${demo.orgId}/serenity/resources`,
    );
  } else {
    lines.push(
      `  curl -s ${url}/healthz`,
      `  curl -s ${auth} ${url}/v2/orgs`,
      `  curl -s ${auth} ${json} -d '{"name":"Acme"}' ${url}/v2/orgs`,
    );
  }
  lines.push("", "  Press Ctrl-C to stop (data stays in the data dir).", "");
  return lines.join("\n");
}

export function registerStart(program: Command): void {
  program
    .command("start")
    .description("all-in-one: embedded database, migrations, the built-in Semrush simulator, API and worker")
    .action(async () => {
      // The demo runs with just-in-time allocation and prompt generation on, unless told otherwise.
      process.env.SERENITY_DYNAMIC_ALLOCATION ??= "true";
      process.env.SERENITY_ASYNC_PROMPT_GEN ??= "true";
      const { config, logger } = bootstrap("start");
      const tracing = await startTracing("start", logger);
      const serving = await openRuntimeWithSimulator(config, logger, {
        simulatorSettings: { rateLimit: { ...START_SIMULATOR_RATE_LIMIT } },
        // The all-in-one command sets everything up, the schema included.
        migrate: true,
      }).catch((error) => fail(logger, error));
      const { runtime } = serving;
      const demo: Demo | undefined = serving.simulatorUrl
        ? {
            orgId: (await runtime.services.orgs.ensureForParentWorkspace("Demo", GOLD_PARENT_WORKSPACE_ID))
              .id,
            parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
            simulatorUrl: serving.simulatorUrl,
          }
        : undefined;
      const worker = await startWorker(runtime);
      const app = await createApiApp(runtime);
      const token = await signDevToken(await localAuthSecret(config), {
        sub: "demo-user",
        admin: true,
        orgs: demo ? [demo.orgId] : [],
      });
      // The built-in simulator knows the demo user's token; a real gateway the operator's bearer.
      const stopUpstreamHealth = startUpstreamHealth(runtime, demo ? { bearer: token } : {});
      const url = await listen(app, config.port, config.host).catch(async (error) => {
        stopUpstreamHealth();
        await worker.stop();
        await serving.close();
        return fail(logger, error);
      });
      process.stdout.write(banner(url, token, demo));
      onShutdown(
        logger,
        async () => {
          stopUpstreamHealth();
          // Side by side, so their graces overlap inside SERENITY_SHUTDOWN_GRACE_MS instead of adding up.
          await Promise.all([app.close(), worker.stop()]);
          await serving.close();
          await tracing.shutdown();
        },
        {
          graceMs: config.shutdownGraceMs,
          force: () => serving.forceClose(),
        },
      );
    });
}
