import { ServiceError } from "../domain/errors.ts";
import type { SectionWrite } from "../domain/meteredWrites.ts";
import { OWN_TAG_VALUES } from "../domain/tagTaxonomy.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import { readAndRememberModels } from "../markets/knownModels.ts";
import type { ProjectRef } from "../markets/market.ts";
import type { Logger } from "../observability/logger.ts";
import { type KnownMarketFacts, rememberTags } from "./knownTags.ts";
import { asFailure } from "./projectPromptOutcomes.ts";
import {
  marketProject,
  type PreparedProjectPrompts,
  type ProjectPromptEntry,
  type ProjectPromptsDeps,
} from "./projectPrompts.ts";
import { modelsAfterRefusal, refreshStaleTags } from "./staleMarketFacts.ts";
import { resolveTagIds, tagKey, type TagPath } from "./tagTaxonomy.ts";

/** Texts per create call: bounded so one call stays well inside the upstream's body and time limits. */
const CREATE_BATCH_SIZE = 100;
/** A runaway-pagination stop when reading a project's texts (200 per page). */
const MAX_PROMPT_PAGES = 200;

/*
 * The bulk create for one project (spec/api.md §3, spec/allocation.md §5), in two phases so that
 * a request writing several projects of one sub-workspace needs one guarded section for all of
 * them (one lock, one resources read — SPEC §7):
 *
 * `prepareProjectPrompts` (the section's need: it runs alongside the lock and the guard's read,
 *  and makes no metered write):
 *  1. read the project's texts (drafts included); take its model set and tag ids from what
 *     Serenity knows about the market, reading upstream (and creating the taxonomy tags the
 *     project lacks, an unmetered upstream write) only for what is not known;
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

export async function prepareProjectPrompts(
  deps: ProjectPromptsDeps,
  ref: ProjectRef & { createdBy: string },
  entries: readonly ProjectPromptEntry[],
  market?: KnownMarketFacts,
): Promise<PreparedProjectPrompts> {
  const prepared: PreparedProjectPrompts = {
    ref,
    primaries: new Map(),
    duplicates: [],
    outcomes: new Map(),
    fresh: [],
    units: 0,
    tagIds: new Map(),
    paths: uniquePaths(entries.flatMap((entry) => entry.tags)),
    market: deps.known ? market : undefined,
    models: 0,
    modelsKnown: false,
    tagsKnown: false,
  };
  for (const entry of entries) {
    if (prepared.primaries.has(entry.text)) prepared.duplicates.push(entry);
    else prepared.primaries.set(entry.text, entry);
  }
  try {
    const [existing, models, tags] = await Promise.all([
      projectTexts(deps.projects, ref),
      modelCount(deps, prepared),
      resolveTagIds(
        deps.projects,
        ref,
        withBackfill(prepared.paths, prepared.market),
        prepared.market?.tagIds,
      ),
    ]);
    if (prepared.market && tags.learned.size > 0) {
      await rememberTags(deps.known!, marketProject(prepared), tags.learned);
    }
    for (const [text, entry] of prepared.primaries) {
      const id = existing.get(text);
      if (id !== undefined) prepared.outcomes.set(text, { index: entry.index, outcome: "existed", id });
    }
    prepared.fresh = [...prepared.primaries.values()].filter((entry) => !prepared.outcomes.has(entry.text));
    prepared.models = models.count;
    prepared.modelsKnown = models.known;
    prepared.units = prepared.fresh.length * models.count;
    prepared.tagIds = tags.ids;
    prepared.tagsKnown = [...tags.ids].some(([key, id]) => prepared.market?.tagIds.get(key) === id);
  } catch (error) {
    failUnwritten(prepared, upstreamFailure(error, deps.logger, "createPrompts"), deps.logger);
  }
  return prepared;
}

/** The project's model count: from the known set, else read upstream (and remembered). */
async function modelCount(
  deps: ProjectPromptsDeps,
  prepared: PreparedProjectPrompts,
): Promise<{ count: number; known: boolean }> {
  const knownSet = prepared.market?.modelIds;
  if (knownSet) return { count: knownSet.length, known: true };
  const { ref } = prepared;
  if (prepared.market) {
    const modelIds = await readAndRememberModels(
      deps.known!,
      deps.projects,
      ref.bearer,
      marketProject(prepared),
    );
    return { count: modelIds.length, known: false };
  }
  const assignments = await deps.projects.listProjectAiModels(ref.bearer, ref.workspaceId, ref.projectId);
  return { count: assignments.length, known: false };
}

/**
 * Fails every text without an outcome yet (e.g. the section could not start: nothing was written).
 * A prepared write changes only in this module: here, while preparing and while writing.
 */
export function failUnwritten(prepared: PreparedProjectPrompts, error: unknown, log: Logger): void {
  const failure = asFailure(error, log);
  for (const [text, entry] of prepared.primaries) {
    if (!prepared.outcomes.has(text)) prepared.outcomes.set(text, { index: entry.index, ...failure });
  }
}

/**
 * The paths a write resolves: its own, and — when it must ask upstream anyway and the market does
 * not know all of Serenity's known values (a market made before its creation seeded them) — those
 * too, under the same look-ups and creates, so later writes find every one known.
 */
function withBackfill(paths: readonly TagPath[], market: KnownMarketFacts | undefined): TagPath[] {
  if (!market) return [...paths];
  const unknown = (path: TagPath) => !market.tagIds.has(tagKey(path));
  if (!paths.some(unknown) || !OWN_TAG_VALUES.some(unknown)) return [...paths];
  return uniquePaths([...paths, ...OWN_TAG_VALUES]);
}

function uniquePaths(paths: readonly TagPath[]): TagPath[] {
  return [...new Map(paths.map((path) => [tagKey(path), path])).values()];
}

/**
 * Steps 3–4 with the section's `write`; never throws: failures become the items' outcomes.
 * `publish: false` stops after the creates (the generation job publishes in a phase of its own,
 * after a checkpoint, so a retry of a failed publish skips the creates).
 */
export async function writeProjectPrompts(
  deps: ProjectPromptsDeps,
  write: SectionWrite,
  prepared: PreparedProjectPrompts,
  options: { publish?: boolean } = {},
): Promise<void> {
  const { projects, logger: log } = deps;
  const { ref, outcomes, fresh } = prepared;
  const create = (batch: ProjectPromptEntry[]) =>
    projects.createPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
      texts: batch.map((entry) => entry.text),
      createdBy: ref.createdBy,
      tagIds: batch[0]!.tags.map((tag) => prepared.tagIds.get(tagKey(tag))!),
    });
  try {
    if (fresh.length > 0) {
      await write(
        "promptCreate",
        async () => {
          for (const batch of batchesByTagSet(fresh.filter((entry) => !outcomes.has(entry.text)))) {
            let created;
            try {
              created = await create(batch);
            } catch (error) {
              // A remembered tag deleted upstream fails the whole call (nothing created): resolve
              // the tags again and, if an id changed, send the batch once more.
              const refreshed = await refreshStaleTags(deps, prepared, batch, error);
              if (!refreshed) throw error;
              prepared.tagIds = refreshed.tagIds;
              prepared.tagsKnown = false;
              if (!refreshed.changed) throw error;
              created = await create(batch);
            }
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
        async () => {
          const models = await modelsAfterRefusal(deps, prepared);
          if (models !== undefined) {
            prepared.models = models;
            prepared.modelsKnown = false;
          }
          const left = prepared.fresh.filter((entry) => !prepared.outcomes.has(entry.text)).length;
          return { prompts: left * prepared.models };
        },
      );
    }
  } catch (error) {
    failUnwritten(prepared, upstreamFailure(error, log, "createPrompts"), log);
  }

  if (options.publish === false) return;
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
