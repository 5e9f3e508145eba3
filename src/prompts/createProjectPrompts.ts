import { ERROR_REGISTRY, ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuard, SectionWrite } from "../domain/meteredWrites.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import type { ProjectRef } from "../markets/market.ts";
import type { Logger } from "../observability/logger.ts";
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

/*
 * The bulk create for one project (spec/api.md §3, spec/allocation.md §5), in two phases so that
 * a request writing several projects of one sub-workspace needs one guarded section for all of
 * them (one lock, one resources read — SPEC §7):
 *
 * `prepareProjectPrompts` (before the section: no metered write):
 *  1. read the project's texts (drafts included) and models, and resolve the tags — creating the
 *     taxonomy tags the project lacks, an unmetered upstream write;
 *  2. texts already there are `existed` without being sent again; the rest are `fresh`, and the
 *     section must cover `units` = fresh texts × models.
 *
 * `writeProjectPrompts` (inside the section):
 *  3. the creates, batched by tag set (a create call takes one tag list for all its texts), as ONE
 *     metered write staging `units`; `is_new: false` (a concurrent writer was first) is `existed`.
 *     The fan-out skips texts that already have an outcome, so a retry of the write after a quota
 *     top-up never reports a created text as existing;
 *  4. ONE publish, also when nothing was new, so a retry after a failed publish makes drafts live.
 *
 * The first text of a request wins; later duplicates copy its outcome (`created` becomes `existed`).
 */

/** A project's items after the reads of step 1–2: what is decided, and what is left to write. */
export interface PreparedProjectPrompts {
  ref: ProjectRef & { createdBy: string };
  /** The first entry of each text. */
  primaries: Map<string, ProjectPromptEntry>;
  /** Later entries repeating a text. */
  duplicates: ProjectPromptEntry[];
  /** Decided outcomes by text; a text without one is still to be written. */
  outcomes: Map<string, BulkItemOutcome>;
  /** Entries to create. */
  fresh: ProjectPromptEntry[];
  /** Prompt units the creates stage: fresh texts × the project's models. */
  units: number;
  tagIds: Map<string, string>;
}

export async function prepareProjectPrompts(
  projects: ProjectEngineClient,
  ref: ProjectRef & { createdBy: string },
  entries: readonly ProjectPromptEntry[],
  log: Logger,
): Promise<PreparedProjectPrompts> {
  const prepared: PreparedProjectPrompts = {
    ref,
    primaries: new Map(),
    duplicates: [],
    outcomes: new Map(),
    fresh: [],
    units: 0,
    tagIds: new Map(),
  };
  for (const entry of entries) {
    if (prepared.primaries.has(entry.text)) prepared.duplicates.push(entry);
    else prepared.primaries.set(entry.text, entry);
  }
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
    for (const [text, entry] of prepared.primaries) {
      const id = existing.get(text);
      if (id !== undefined) prepared.outcomes.set(text, { index: entry.index, outcome: "existed", id });
    }
    prepared.fresh = [...prepared.primaries.values()].filter((entry) => !prepared.outcomes.has(entry.text));
    prepared.units = prepared.fresh.length * assignments.length;
    prepared.tagIds = tagIds;
  } catch (error) {
    failUnwritten(prepared, upstreamFailure(error, log, "createPrompts"), log);
  }
  return prepared;
}

/** Whether the project still has anything to write (creates or the publish). */
export function hasWork(prepared: PreparedProjectPrompts): boolean {
  return (
    prepared.fresh.length > 0 ||
    [...prepared.outcomes.values()].some((outcome) => outcome.outcome !== "failed")
  );
}

/** Steps 3–4 with the section's `write`; never throws: failures become the items' outcomes. */
export async function writeProjectPrompts(
  projects: ProjectEngineClient,
  write: SectionWrite,
  prepared: PreparedProjectPrompts,
  log: Logger,
): Promise<void> {
  const { ref, outcomes, fresh, tagIds } = prepared;
  try {
    if (fresh.length > 0) {
      await write(
        "promptCreate",
        async () => {
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
        },
        { prompts: prepared.units },
      );
    }
  } catch (error) {
    failUnwritten(prepared, upstreamFailure(error, log, "createPrompts"), log);
  }

  if ([...outcomes.values()].some((outcome) => outcome.outcome !== "failed")) {
    try {
      await write("publish", () => projects.publishProject(ref.bearer, ref.workspaceId, ref.projectId));
    } catch (error) {
      // The texts exist as drafts; a retry reports them as existing and publishes again.
      const failure = asFailure(upstreamFailure(error, log, "publishProject"), log);
      for (const [text, outcome] of outcomes) {
        if (outcome.outcome === "created") outcomes.set(text, { index: outcome.index, ...failure });
      }
    }
  }
}

/** Fails every text without an outcome yet (e.g. the section could not start: nothing was written). */
export function failUnwritten(prepared: PreparedProjectPrompts, error: unknown, log: Logger): void {
  const failure = asFailure(error, log);
  for (const [text, entry] of prepared.primaries) {
    if (!prepared.outcomes.has(text)) prepared.outcomes.set(text, { index: entry.index, ...failure });
  }
}

/** Every entry's outcome, duplicates included (not sorted). */
export function projectPromptOutcomes(prepared: PreparedProjectPrompts): BulkItemOutcome[] {
  const { primaries, outcomes, duplicates } = prepared;
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

/** One project on its own: prepare, then one section for its creates and publish. */
export async function createProjectPrompts(
  projects: ProjectEngineClient,
  guard: MeteredWriteGuard,
  ref: ProjectRef & { createdBy: string },
  entries: readonly ProjectPromptEntry[],
  log: Logger,
): Promise<BulkItemOutcome[]> {
  const prepared = await prepareProjectPrompts(projects, ref, entries, log);
  if (hasWork(prepared)) {
    try {
      await guard.section({ prompts: prepared.units }, (write) =>
        writeProjectPrompts(projects, write, prepared, log),
      );
    } catch (error) {
      // Only the section's own start (lock wait, ensure) throws: nothing was written.
      failUnwritten(prepared, upstreamFailure(error, log, "createPrompts"), log);
    }
  }
  return projectPromptOutcomes(prepared);
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
