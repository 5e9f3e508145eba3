import { boundedMap } from "../concurrency/boundedMap.ts";
import type { MeteredWriteGuard, SectionWrite } from "../domain/meteredWrites.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import { upstreamFailure } from "../gateway/registryErrors.ts";
import type { KnownFactsDeps } from "../markets/knownModels.ts";
import type { Logger } from "../observability/logger.ts";
import type { BulkItemOutcome } from "./bulkOutcome.ts";
import { failUnwritten, prepareProjectPrompts, writeProjectPrompts } from "./createProjectPrompts.ts";
import { loadKnownFacts } from "./knownTags.ts";
import { projectPromptOutcomes } from "./projectPromptOutcomes.ts";
import { hasWork, type PreparedProjectPrompts, type ProjectPromptEntry } from "./projectPrompts.ts";

/** Projects written in parallel by one prompt write. */
const PROJECT_CONCURRENCY = 4;

export interface PromptWriteDeps {
  projects: ProjectEngineClient;
  logger: Logger;
  /** Where the markets' model sets and tag ids are remembered. */
  known: KnownFactsDeps;
}

/** A market's project and the entries bound for it. */
export interface PromptWriteTarget {
  market: { id: string; workspaceId: string; projectId: string };
  entries: readonly ProjectPromptEntry[];
}

export interface PromptWrite {
  bearer: string;
  /** Stamped as the texts' `created_by`. */
  createdBy: string;
  targets: readonly PromptWriteTarget[];
  /** The metered-write guard of a workspace the targets' projects live in. */
  guardFor(workspaceId: string): MeteredWriteGuard;
  /**
   * Without it, each project publishes right after its creates. With it, no project publishes on
   * its own: it runs inside each workspace's section after that section's creates, with their
   * outcomes, and may publish through `write` itself.
   */
  afterCreates?: (write: SectionWrite, outcomes: BulkItemOutcome[]) => Promise<void>;
  /**
   * What a section that fails does: `"outcomes"` (default) fails its texts that have no outcome
   * yet with the reason; `"throw"` rethrows the failure to the caller.
   */
  onSectionFailure?: "outcomes" | "throw";
}

/**
 * The one way prompts are written (the bulk API and the generation job): every target's project
 * is read (its texts, and the model set and tag ids not already known), then ONE guarded section
 * per workspace covers every create and publish there — one lock, one resources read. Its need is
 * the projects' reads, which run alongside the lock and the guard's own read. Answers every
 * entry's outcome (repeated texts included), by index.
 */
export async function writePrompts(deps: PromptWriteDeps, request: PromptWrite): Promise<BulkItemOutcome[]> {
  const { logger: log } = deps;
  const byWorkspace = new Map<string, PromptWriteTarget[]>();
  for (const target of request.targets) {
    const workspaceId = target.market.workspaceId;
    byWorkspace.set(workspaceId, [...(byWorkspace.get(workspaceId) ?? []), target]);
  }
  const projectDeps = { projects: deps.projects, logger: log, known: deps.known };
  const publish = request.afterCreates === undefined;

  const prepared = await Promise.all(
    [...byWorkspace].map(async ([workspaceId, targets]) => {
      let preparing: Promise<PreparedProjectPrompts[]> | undefined;
      // Everything the need is read from — the remembered model sets and tags included — is read
      // here, as the section's need: after the guard noted where the model sets stood
      // (src/allocation/modelSetChanges.ts), never before.
      const prepare = () =>
        (preparing ??= loadKnownFacts(
          deps.known.db,
          targets.map(({ market }) => market),
        ).then((known) =>
          boundedMap(targets, PROJECT_CONCURRENCY, ({ market, entries }) =>
            prepareProjectPrompts(
              projectDeps,
              {
                bearer: request.bearer,
                workspaceId: market.workspaceId,
                projectId: market.projectId,
                createdBy: request.createdBy,
              },
              entries,
              known.get(market.id),
            ),
          ),
        ));
      const guard = request.guardFor(workspaceId);
      try {
        await guard.section(
          async () => ({
            prompts: (await prepare()).filter(hasWork).reduce((sum, project) => sum + project.units, 0),
          }),
          async (write) => {
            const projects = await prepare();
            await boundedMap(projects.filter(hasWork), PROJECT_CONCURRENCY, (project) =>
              writeProjectPrompts(projectDeps, write, project, { publish }),
            );
            await request.afterCreates?.(write, projects.flatMap(projectPromptOutcomes));
          },
        );
      } catch (error) {
        if (request.onSectionFailure === "throw") throw error;
        // Only the section's own start (lock wait, ensure) throws — writeProjectPrompts turns its
        // failures into outcomes — so nothing was written, publish included: the projects' new
        // texts fail with the reason, and drafts of an earlier failed publish stay drafts until
        // a request whose section starts.
        const failure = upstreamFailure(error, log, "createPrompts");
        for (const project of await prepare()) failUnwritten(project, failure, log);
      }
      return prepare();
    }),
  );
  return prepared
    .flat()
    .flatMap(projectPromptOutcomes)
    .sort((a, b) => a.index - b.index);
}
