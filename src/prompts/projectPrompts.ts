import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { KnownFactsDeps } from "../markets/knownModels.ts";
import type { ProjectRef } from "../markets/market.ts";
import type { Logger } from "../observability/logger.ts";
import type { BulkItemOutcome } from "./bulkOutcome.ts";
import type { KnownMarketFacts } from "./knownTags.ts";
import type { TagPath } from "./tagTaxonomy.ts";

/*
 * The shapes shared by a project's bulk create (createProjectPrompts.ts), the recovery from stale
 * remembered facts (staleMarketFacts.ts) and the items' outcomes (projectPromptOutcomes.ts).
 */

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

/** The market project a prepared write remembers facts for (only when facts are kept). */
export function marketProject(prepared: PreparedProjectPrompts) {
  return {
    marketId: prepared.market!.marketId,
    workspaceId: prepared.ref.workspaceId,
    projectId: prepared.ref.projectId,
  };
}

/** Whether the project still has anything to write (creates or the publish). */
export function hasWork(prepared: PreparedProjectPrompts): boolean {
  return (
    prepared.fresh.length > 0 ||
    [...prepared.outcomes.values()].some((outcome) => outcome.outcome !== "failed")
  );
}
