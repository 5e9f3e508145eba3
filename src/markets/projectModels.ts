import { MODEL_ADD_CALL_SITE, type SectionWrite } from "../domain/meteredWrites.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { AiModelAssignment } from "../gateway/types.ts";
import { addOrFindModel } from "./createOrAdopt.ts";
import type { ProjectRef } from "./market.ts";

/**
 * The AI models a market's project tracks: plan the change to a desired list, then apply it —
 * removals unmetered, adds as metered writes of the caller's section.
 */

export interface ModelChange {
  added: string[];
  removed: string[];
}

/** What a project's model list must change to track exactly the desired models. */
export interface ModelPlan {
  /** Catalogue ids to add, in the desired order. */
  added: string[];
  /** Assignments to remove. */
  removed: AiModelAssignment[];
}

/** The plan from the project's assignment list `current` to exactly `desiredModelIds`. */
export function planModelChange(current: AiModelAssignment[], desiredModelIds: readonly string[]): ModelPlan {
  const desired = new Set(desiredModelIds);
  const present = new Set(current.map((assignment) => assignment.model.id));
  return {
    added: desiredModelIds.filter((id) => !present.has(id)),
    removed: current.filter((assignment) => !desired.has(assignment.model.id)),
  };
}

/**
 * The units a plan's model adds stage on a project of `texts` texts (one per text per model), the
 * need of the section that applies them (spec/allocation.md §5: `{prompts: t × Δ}`).
 */
export function modelAddUnits(plan: ModelPlan, texts: number): number {
  return plan.added.length * texts;
}

/** A plan's removals: one DELETE by assignment id (unmetered: it frees units, so it needs no section). */
export async function removeModels(
  projects: ProjectEngineClient,
  ref: ProjectRef,
  plan: ModelPlan,
): Promise<void> {
  if (plan.removed.length === 0) return;
  await projects.deleteProjectAiModels(
    ref.bearer,
    ref.workspaceId,
    ref.projectId,
    plan.removed.map((assignment) => assignment.assignmentId),
  );
}

/**
 * A plan's adds inside the caller's metered-write section, one call at a time (the upstream has no
 * bulk add), each through `write` as staging `{prompts: texts}` (one unit per text). Publishing is
 * the caller's, once for all its edits, in the same section.
 */
export async function addModels(
  projects: ProjectEngineClient,
  write: SectionWrite,
  ref: ProjectRef,
  plan: ModelPlan,
  texts: number,
): Promise<void> {
  for (const modelId of plan.added) {
    await write(
      MODEL_ADD_CALL_SITE,
      // Create-or-adopt: a transiently failed add is looked for before it is sent again.
      () => addOrFindModel(projects, ref, modelId),
      { prompts: texts },
    );
  }
}

/** What a plan changed, as catalogue ids. */
export function modelChangeOf(plan: ModelPlan): ModelChange {
  return { added: plan.added, removed: plan.removed.map((assignment) => assignment.model.id) };
}

/** Texts in a project, drafts included (one page-of-one read: the upstream's `total`). */
export async function projectTextCount(projects: ProjectEngineClient, ref: ProjectRef): Promise<number> {
  const page = await projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
    draft: true,
    limit: 1,
  });
  return page.total;
}
