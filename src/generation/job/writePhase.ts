import type { Db } from "../../db/database.ts";
import { findMarket } from "../../db/markets/findMarket.ts";
import type { MarketRow } from "../../db/markets/marketRow.ts";
import { findOrgById } from "../../db/orgs/findOrgById.ts";
import type { OrgWithMetering } from "../../db/orgs/orgRow.ts";
import type { Clock } from "../../domain/clock.ts";
import type { MeteredWriteGuard, MeteredWriteGuardFactory } from "../../domain/meteredWrites.ts";
import type { GatewayClient } from "../../gateway/gatewayClient.ts";
import type { JobContext } from "../../jobs/handler.ts";
import { JobError, needsReauth } from "../../jobs/jobError.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "../../markets/writeTarget.ts";
import type { BulkItemOutcome } from "../../prompts/bulkOutcome.ts";
import { generatedEntries } from "../../prompts/promptEntries.ts";
import { writePrompts } from "../../prompts/writePrompts.ts";
import type { GeneratedPrompt } from "../wire.ts";
import { GENERATION_RETRY_CODES, isReauthCode, writeFailure } from "./generationJobErrors.ts";
import type { GenerationJobState } from "./generationJobState.ts";

export interface WritePhaseDeps {
  db: Db;
  clock: Clock;
  gateway: Pick<GatewayClient, "projects">;
  meteredWrites: MeteredWriteGuardFactory;
}

type Ctx = JobContext<GenerationJobState>;

/** The market's ready project and its org; missing → retryable (spec §3: it may not be there yet). */
async function marketProject(deps: WritePhaseDeps, state: GenerationJobState) {
  const row = await findMarket(deps.db, {
    brandId: state.brandId,
    geoTargetId: state.geoTargetId,
    languageCode: state.languageCode,
  });
  const org = row ? await findOrgById(deps.db, state.orgId) : undefined;
  if (!row || row.status !== "ready" || !row.projectId || !org) {
    throw new JobError(GENERATION_RETRY_CODES.projectNotFound, { retryable: true });
  }
  return { row: row as MarketRow & { projectId: string }, org };
}

function guardOf(
  deps: WritePhaseDeps,
  state: GenerationJobState,
  row: MarketRow,
  org: OrgWithMetering,
  bearer: string,
) {
  return meteredWriteGuardFor(deps.meteredWrites, marketWriteTarget(row.workspaceId, org), {
    orgId: state.orgId,
    brandId: state.brandId,
    operation: { bearer, requestId: undefined },
  });
}

/**
 * Phases 2 and 3 (spec/generation.md §3) in one guarded section when both are due (one lock,
 * one resources read): read the project's texts, tags and models; create the fresh texts under
 * the allocation guard with `need = fresh texts × models`, stamped `created_by = callerId`;
 * checkpoint `promptsWritten`; publish; checkpoint `published`. A retry after a failed publish
 * skips straight to publishing. Upstream de-duplicates by text, so a repeated write is safe.
 */
export async function writeAndPublish(
  deps: WritePhaseDeps,
  ctx: Ctx,
  bearer: string,
  prompts: readonly GeneratedPrompt[],
): Promise<{ projectId: string; promptCount: number }> {
  const state = ctx.metadata;
  const { row, org } = await marketProject(deps, state);
  const guard = guardOf(deps, state, row, org, bearer);
  const publish = (write: (site: string, fn: () => Promise<void>) => Promise<void>) =>
    write("publish", () =>
      deps.gateway.projects.publishProject(bearer, row.workspaceId, row.projectId),
    ).catch((error: unknown) => {
      throw writeFailure(error, ctx.logger, "publishProject", GENERATION_RETRY_CODES.publish);
    });

  if (state.promptsWritten) {
    if (!state.published) {
      await runSection(ctx, guard, {}, (write) => publish(write));
      await ctx.saveCheckpoint({ published: true });
    }
    return { projectId: state.projectId ?? row.projectId, promptCount: state.promptCount ?? 0 };
  }

  const entries = generatedEntries(prompts, { name: state.brand, aliases: state.aliases });
  const log = ctx.logger;
  try {
    await writePrompts(
      {
        projects: deps.gateway.projects,
        logger: log,
        known: { db: deps.db, clock: deps.clock, logger: log },
      },
      {
        bearer,
        createdBy: state.callerId,
        targets: [
          { market: { id: row.id, workspaceId: row.workspaceId, projectId: row.projectId }, entries },
        ],
        guardFor: () => guard,
        onSectionFailure: "throw",
        afterCreates: async (write, outcomes) => {
          throwOnFailedItems(outcomes);
          await ctx.saveCheckpoint({
            promptsWritten: true,
            projectId: row.projectId,
            promptCount: entries.length,
          });
          log.info({ promptCount: entries.length, projectId: row.projectId }, "generated prompts written");
          await publish(write);
          await ctx.saveCheckpoint({ published: true });
        },
      },
    );
  } catch (error) {
    throw writeFailure(error, log, "writeGeneratedPrompts", GENERATION_RETRY_CODES.write);
  }
  return { projectId: row.projectId, promptCount: entries.length };
}

/** A section whose start failure (lock, allocation) is classified like a write failure. */
async function runSection(
  ctx: Ctx,
  guard: MeteredWriteGuard,
  need: Parameters<MeteredWriteGuard["section"]>[0],
  work: Parameters<MeteredWriteGuard["section"]>[1],
): Promise<void> {
  try {
    await guard.section(need, work);
  } catch (error) {
    throw writeFailure(error, ctx.logger, "writeGeneratedPrompts", GENERATION_RETRY_CODES.write);
  }
}

/**
 * Any text that failed fails the phase: 401/403 → NEEDS_REAUTH; the upstream's request limit →
 * `upstreamBusy` (the runner delays the job and gives its attempt back, never failing it for the
 * limit); anything else retryable.
 */
function throwOnFailedItems(outcomes: readonly BulkItemOutcome[]): void {
  const failed = outcomes.filter((outcome) => outcome.outcome === "failed");
  if (failed.length === 0) return;
  if (failed.some((outcome) => outcome.outcome === "failed" && isReauthCode(outcome.code)))
    throw needsReauth();
  if (failed.some((outcome) => outcome.outcome === "failed" && outcome.code === "upstreamBusy"))
    throw new JobError("upstreamBusy", { retryable: true });
  throw new JobError(GENERATION_RETRY_CODES.write, { retryable: true });
}
