import type { Need } from "../domain/allocation.ts";
import { ERROR_REGISTRY, ServiceError } from "../domain/errors.ts";
import type { MeteredWriteGuard, SectionWrite } from "../domain/meteredWrites.ts";
import { isGatewayError } from "../gateway/errors.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { MAX_PROMPT_PAGE_SIZE } from "../gateway/projectEngineClient.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import { forgetModels, type KnownFactsDeps, readAndRememberModels } from "../markets/knownModels.ts";
import type { ProjectRef } from "../markets/market.ts";
import type { Logger } from "../observability/logger.ts";
import type { BulkItemOutcome } from "./bulkOutcome.ts";
import { forgetTags, type KnownMarketFacts, rememberTags } from "./knownTags.ts";
import { resolveTagIds, tagKey, type TagPath } from "./tagTaxonomy.ts";

/** What preparing and writing a project's prompts is composed from. */
export interface ProjectPromptsDeps {
  projects: ProjectEngineClient;
  logger: Logger;
  /**
   * Where facts about markets are remembered (their model sets and tag ids). Without it, or for a
   * project the caller passes no known facts for, everything is read upstream and nothing is kept.
   */
  known?: KnownFactsDeps;
}

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
  /** Every tag path the entries use. */
  paths: TagPath[];
  /** What was known about the market before this request (undefined: nothing is remembered). */
  market: KnownMarketFacts | undefined;
  /** The project's model count, and whether it came from the known set (not read upstream now). */
  models: number;
  modelsKnown: boolean;
  /** Whether a tag id used came from the known ids (not resolved upstream now). */
  tagsKnown: boolean;
}

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
      resolveTagIds(deps.projects, ref, prepared.paths, prepared.market?.tagIds),
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

function marketProject(prepared: PreparedProjectPrompts) {
  return {
    marketId: prepared.market!.marketId,
    workspaceId: prepared.ref.workspaceId,
    projectId: prepared.ref.projectId,
  };
}

function uniquePaths(paths: readonly TagPath[]): TagPath[] {
  return [...new Map(paths.map((path) => [tagKey(path), path])).values()];
}

/** Whether the project still has anything to write (creates or the publish). */
export function hasWork(prepared: PreparedProjectPrompts): boolean {
  return (
    prepared.fresh.length > 0 ||
    [...prepared.outcomes.values()].some((outcome) => outcome.outcome !== "failed")
  );
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
              if (!(await refreshStaleTags(deps, prepared, batch, error))) throw error;
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
        () => stagesAfterRefusal(deps, prepared),
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

/**
 * What the creates still stage, asked after a metered-quota refusal (spec/allocation.md §6). A
 * refusal is also how upstream says a remembered model set is stale (a model added behind our
 * back makes every text cost more than we counted): the set is read again first.
 */
async function stagesAfterRefusal(deps: ProjectPromptsDeps, prepared: PreparedProjectPrompts): Promise<Need> {
  if (prepared.modelsKnown && prepared.market) {
    // Forgotten first: what upstream reads now replaces it, whatever its time stamp says.
    await forgetModels(deps.known!, prepared.market.marketId).catch((error: unknown) =>
      deps.logger.warn({ err: error }, "could not forget a market's models"),
    );
    const modelIds = await readAndRememberModels(
      deps.known!,
      deps.projects,
      prepared.ref.bearer,
      marketProject(prepared),
    );
    prepared.models = modelIds.length;
    prepared.modelsKnown = false;
  }
  const left = prepared.fresh.filter((entry) => !prepared.outcomes.has(entry.text)).length;
  return { prompts: left * prepared.models };
}

/**
 * After a create failed: when a remembered tag id may be what upstream refused (an unknown tag is
 * a bare 500, nothing created), forgets the market's tag ids, resolves them upstream again, and
 * answers whether an id of `batch` changed (then the batch is worth sending again). Any other
 * failure, or one where the ids are still the same, is left to the caller.
 */
async function refreshStaleTags(
  deps: ProjectPromptsDeps,
  prepared: PreparedProjectPrompts,
  batch: ProjectPromptEntry[],
  error: unknown,
): Promise<boolean> {
  const staleSignal =
    isGatewayError(error) && (error.status === 500 || error.status === 404 || error.kind === "badRequest");
  if (!prepared.tagsKnown || !staleSignal) return false;
  const idsOf = () => batch[0]!.tags.map((tag) => prepared.tagIds.get(tagKey(tag)));
  const before = idsOf();
  try {
    if (prepared.market) await forgetTags(deps.known!, prepared.market.marketId);
    const fresh = await resolveTagIds(deps.projects, prepared.ref, prepared.paths);
    if (prepared.market) await rememberTags(deps.known!, marketProject(prepared), fresh.learned);
    prepared.tagIds = fresh.ids;
    prepared.tagsKnown = false;
  } catch (refreshError) {
    deps.logger.warn({ err: refreshError }, "could not resolve tags again after a failed create");
    return false;
  }
  const changed = idsOf().some((id, index) => id !== before[index]);
  deps.logger.info(
    { changed, status: isGatewayError(error) ? error.status : undefined },
    "a create failed with remembered tag ids; resolved them again",
  );
  return changed;
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

/**
 * One project on its own: one section whose need is the project's reads (overlapped with the
 * guard's), then its creates and publish.
 */
export async function createProjectPrompts(
  deps: ProjectPromptsDeps,
  guard: MeteredWriteGuard,
  ref: ProjectRef & { createdBy: string },
  entries: readonly ProjectPromptEntry[],
  market?: KnownMarketFacts,
): Promise<BulkItemOutcome[]> {
  let preparing: Promise<PreparedProjectPrompts> | undefined;
  const prepare = () => (preparing ??= prepareProjectPrompts(deps, ref, entries, market));
  try {
    await guard.section(
      async () => ({ prompts: (await prepare()).units }),
      async (write) => {
        const prepared = await prepare();
        if (hasWork(prepared)) await writeProjectPrompts(deps, write, prepared);
      },
    );
  } catch (error) {
    // Only the section's own start (lock wait, ensure) throws: nothing was written.
    failUnwritten(await prepare(), upstreamFailure(error, deps.logger, "createPrompts"), deps.logger);
  }
  return projectPromptOutcomes(await prepare());
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
