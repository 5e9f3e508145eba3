import { sql } from "drizzle-orm";

import type { Units } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";

/**
 * Adds what a guarded section just staged to the sub-workspace's entry (`drafted += staged`) and
 * dates it `observedAt` (ADR 0020). Called under the sub-workspace's allocation lock right after
 * the section's writes: the entry then holds the guard's read plus every unit Serenity staged since,
 * which is what a later publish turns into `used` — the figure a read lagging behind that publish
 * must not lower (recordResourcesRead). No entry, or one newer than this write: nothing changes.
 */
export async function recordStagedUnits(
  db: DbExecutor,
  staged: { orgId: string; workspaceId: string; units: Units; observedAt: Date },
): Promise<boolean> {
  const observedAt = staged.observedAt.toISOString();
  const result = await db.execute(sql`
    update resource_observations set
      projects_drafted = projects_drafted + ${staged.units.projects},
      prompts_drafted = prompts_drafted + ${staged.units.prompts},
      observed_at = ${observedAt}::timestamptz
    where org_id = ${staged.orgId}::uuid
      and workspace_id = ${staged.workspaceId}
      and observed_at <= ${observedAt}::timestamptz
  `);
  return (result.rowCount ?? 0) > 0;
}
