import type { WorkspaceResources } from "../../domain/allocation.ts";
import type { OrgMetering } from "../../domain/metering.ts";
import { meteringFromRecord } from "./meteringColumns.ts";

/** One entry of the resources record: a workspace's resources as Serenity last learned them. */
export interface ResourceObservation {
  orgId: string;
  workspaceId: string;
  resources: WorkspaceResources;
  /** The title the parent's family read gave it (absent until one was read). */
  title: string | null;
  /** When it was learned: the app clock at the start of the call that learned it. */
  observedAt: Date;
  /** The parent's entry only: its `ai` metering as last read (`unknown` for every other entry). */
  metering: OrgMetering;
}

/**
 * The `observed_at` of an entry that holds only the parent's metering (recordParentMetering): no
 * resources read of the workspace has been recorded yet. Older than any read, so the first one
 * replaces its zeros (and keeps the metering); views treat it as an entry they do not have.
 */
export const NOT_READ_OBSERVED_AT = new Date(0);

/** Whether the entry holds resources Serenity learned (not only the parent's metering). */
export function holdsResources(entry: Pick<ResourceObservation, "observedAt">): boolean {
  return entry.observedAt.getTime() > NOT_READ_OBSERVED_AT.getTime();
}

/** A row as `db.execute` returns it (snake case, timestamps possibly as strings). */
export type RawObservation = {
  org_id: string;
  workspace_id: string;
  projects_used: number;
  projects_drafted: number;
  projects_total: number;
  prompts_used: number;
  prompts_drafted: number;
  prompts_total: number;
  title: string | null;
  observed_at: Date | string;
  metering: string | null;
  metering_as_of: Date | string | null;
};

export function observationOf(row: RawObservation): ResourceObservation {
  return {
    orgId: row.org_id,
    workspaceId: row.workspace_id,
    resources: {
      projects: { used: row.projects_used, drafted: row.projects_drafted, total: row.projects_total },
      prompts: { used: row.prompts_used, drafted: row.prompts_drafted, total: row.prompts_total },
    },
    title: row.title,
    observedAt: new Date(row.observed_at),
    metering: meteringFromRecord(row.metering, row.metering_as_of),
  };
}

/** The columns every statement of this folder returns. */
export const OBSERVATION_COLUMNS =
  "org_id, workspace_id, projects_used, projects_drafted, projects_total, prompts_used, prompts_drafted, prompts_total, title, observed_at, metering, metering_as_of";
