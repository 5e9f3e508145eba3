import { ERROR_REGISTRY, ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuard } from "../domain/meteredWrites.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import type { ProjectRef } from "../models/reconcileProjectModels.ts";
import type { Logger } from "../observability/logger.ts";
import { upstreamFailure } from "../services/upstreamErrors.ts";
import type { BulkItemOutcome } from "./bulkOutcome.ts";
import { resolveTagIds, tagKey, type TagPath } from "./tagTaxonomy.ts";

/** One valid item bound for a project, with its tags already decided. */
export interface ProjectPromptEntry {
  index: number;
  text: string;
  tags: TagPath[];
}

/** Texts per create call: bounded so one call stays well inside the upstream's body and time limits. */
const CREATE_BATCH_SIZE = 100;
/** A runaway-pagination stop when reading a project's texts (200 per page). */
const MAX_PROMPT_PAGES = 200;

/**
 * The bulk create for one project (spec/api.md §3, spec/allocation.md §5):
 *  1. read the project's texts (drafts included) and models, and resolve the tags;
 *  2. texts already there are `existed` without being sent again;
 *  3. ONE metered write covering `newTexts × models` wraps the creates, batched by tag set (a
 *     create call takes one tag list for all its texts); `is_new: false` (a concurrent writer was
 *     first) is `existed`. The fan-out skips texts that already have an outcome, so a guard that
 *     retries the write after a quota top-up never reports a created text as existing;
 *  4. ONE publish, also when nothing was new, so a retry after a failed publish makes drafts live.
 * The first text of a request wins; later duplicates copy its outcome (`created` becomes `existed`).
 */
export async function createProjectPrompts(
  projects: ProjectEngineClient,
  guard: MeteredWriteGuard,
  ref: ProjectRef & { createdBy: string },
  entries: readonly ProjectPromptEntry[],
  log: Logger,
): Promise<BulkItemOutcome[]> {
  const primaries = new Map<string, ProjectPromptEntry>();
  const duplicates: ProjectPromptEntry[] = [];
  for (const entry of entries) {
    if (primaries.has(entry.text)) duplicates.push(entry);
    else primaries.set(entry.text, entry);
  }
  const outcomes = new Map<string, BulkItemOutcome>();

  try {
    const [existing, assignments, tagIds] = await Promise.all([
      projectTexts(projects, ref),
      projects.listProjectAiModels(ref.bearer, ref.workspaceId, ref.projectId),
      resolveTagIds(
        projects,
        ref,
        entries.flatMap((entry) => entry.tags),
      ),
    ]);
    for (const [text, entry] of primaries) {
      const id = existing.get(text);
      if (id !== undefined) outcomes.set(text, { index: entry.index, outcome: "existed", id });
    }
    const fresh = [...primaries.values()].filter((entry) => !outcomes.has(entry.text));
    if (fresh.length > 0) {
      await guard.write("promptCreate", { prompts: fresh.length * assignments.length }, async () => {
        for (const batch of batchesByTagSet(fresh.filter((entry) => !outcomes.has(entry.text)))) {
          const created = await projects.createPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
            texts: batch.map((entry) => entry.text),
            createdBy: ref.createdBy,
            tagIds: batch[0]!.tags.map((tag) => tagIds.get(tagKey(tag))!),
          });
          const byText = new Map(created.items.map((prompt) => [prompt.text, prompt]));
          for (const entry of batch) {
            const prompt = byText.get(entry.text);
            if (!prompt)
              throw new ServiceError("serenityUpstreamError", {
                details: { reason: "text missing from create answer" },
              });
            outcomes.set(entry.text, {
              index: entry.index,
              outcome: prompt.isNew ? "created" : "existed",
              id: prompt.id,
            });
          }
        }
      });
    }
  } catch (error) {
    failRemaining(primaries, outcomes, upstreamFailure(error, log, "createPrompts"), log);
  }

  if ([...outcomes.values()].some((outcome) => outcome.outcome !== "failed")) {
    try {
      await guard.write("publish", {}, () =>
        projects.publishProject(ref.bearer, ref.workspaceId, ref.projectId),
      );
    } catch (error) {
      // The texts exist as drafts; a retry reports them as existing and publishes again.
      const failure = asFailure(upstreamFailure(error, log, "publishProject"), log);
      for (const [text, outcome] of outcomes) {
        if (outcome.outcome === "created") outcomes.set(text, { index: outcome.index, ...failure });
      }
    }
  }

  const results = [...primaries.values()].map((entry) => outcomes.get(entry.text)!);
  for (const duplicate of duplicates) {
    const first = outcomes.get(duplicate.text)!;
    results.push(
      first.outcome === "failed"
        ? { ...first, index: duplicate.index }
        : { index: duplicate.index, outcome: "existed", id: first.id },
    );
  }
  return results;
}

/** Every text of the project, drafts included, with its id. */
async function projectTexts(projects: ProjectEngineClient, ref: ProjectRef): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (let page = 1; page <= MAX_PROMPT_PAGES; page++) {
    const answer = await projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
      draft: true,
      page,
      limit: MAX_PROMPT_PAGE_SIZE,
    });
    for (const prompt of answer.items) texts.set(prompt.text, prompt.id);
    if (answer.items.length < MAX_PROMPT_PAGE_SIZE || page * MAX_PROMPT_PAGE_SIZE >= answer.total) break;
  }
  return texts;
}

function batchesByTagSet(entries: readonly ProjectPromptEntry[]): ProjectPromptEntry[][] {
  const groups = new Map<string, ProjectPromptEntry[]>();
  for (const entry of entries) {
    const key = entry.tags.map(tagKey).sort().join("\n");
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const batches: ProjectPromptEntry[][] = [];
  for (const group of groups.values()) {
    for (let start = 0; start < group.length; start += CREATE_BATCH_SIZE) {
      batches.push(group.slice(start, start + CREATE_BATCH_SIZE));
    }
  }
  return batches;
}

function asFailure(
  error: unknown,
  log: Logger,
): { outcome: "failed"; code: ServiceError["code"]; message: string } {
  if (error instanceof ServiceError) return { outcome: "failed", code: error.code, message: error.message };
  log.error({ err: error }, "bulk prompt create failed unexpectedly");
  return {
    outcome: "failed",
    code: "internalServerError",
    message: ERROR_REGISTRY.internalServerError.message,
  };
}

function failRemaining(
  primaries: Map<string, ProjectPromptEntry>,
  outcomes: Map<string, BulkItemOutcome>,
  error: unknown,
  log: Logger,
): void {
  const failure = asFailure(error, log);
  for (const [text, entry] of primaries) {
    if (!outcomes.has(text)) outcomes.set(text, { index: entry.index, ...failure });
  }
}
