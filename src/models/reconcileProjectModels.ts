import type { MeteredWriteGuard } from "../domain/meteredWrites.ts";
import type { ProjectEngineClient } from "../gateway/projectEngineClient.ts";
import type { AiModelAssignment } from "../gateway/types.ts";

/** Where a project lives and who acts on it. */
export interface ProjectRef {
  bearer: string;
  workspaceId: string;
  projectId: string;
}

export interface ModelChange {
  added: string[];
  removed: string[];
}

/**
 * Makes a project track exactly `desiredModelIds` (catalogue ids): removed models go in one DELETE
 * by assignment id, new ones are added one call at a time (the upstream has no bulk add), each a
 * metered write needing `{prompts: textCount}` (a model add stages one unit per text). Publishing
 * is the caller's, once for all its edits. `current` is the project's assignment list.
 */
export async function reconcileProjectModels(
  projects: ProjectEngineClient,
  guard: MeteredWriteGuard,
  ref: ProjectRef,
  current: AiModelAssignment[],
  desiredModelIds: readonly string[],
  textCount: () => Promise<number>,
): Promise<ModelChange> {
  const desired = new Set(desiredModelIds);
  const present = new Set(current.map((assignment) => assignment.model.id));
  const removed = current.filter((assignment) => !desired.has(assignment.model.id));
  const added = desiredModelIds.filter((id) => !present.has(id));

  if (removed.length > 0) {
    await projects.deleteProjectAiModels(
      ref.bearer,
      ref.workspaceId,
      ref.projectId,
      removed.map((assignment) => assignment.assignmentId),
    );
  }
  if (added.length > 0) {
    const texts = await textCount();
    for (const modelId of added) {
      await guard.write("modelAdd", { prompts: texts }, () =>
        projects.addProjectAiModel(ref.bearer, ref.workspaceId, ref.projectId, modelId),
      );
    }
  }
  return { added, removed: removed.map((assignment) => assignment.model.id) };
}

/** Texts in a project, drafts included (one page-of-one read: the upstream's `total`). */
export async function projectTextCount(projects: ProjectEngineClient, ref: ProjectRef): Promise<number> {
  const page = await projects.listPrompts(ref.bearer, ref.workspaceId, ref.projectId, {
    draft: true,
    limit: 1,
  });
  return page.total;
}
