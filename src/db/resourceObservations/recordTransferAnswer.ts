import { sql } from "drizzle-orm";

import type { TransferTargets, WorkspaceResources } from "../../domain/allocation.ts";
import type { DbExecutor } from "../database.ts";
import { NOT_READ_OBSERVED_AT } from "./observationRow.ts";

/**
 * Records what an applied transfer tells (ADR 0020), in one statement: the sub-workspace's totals
 * are the targets (absolute, so exact), and the org's parent gave or took the difference from
 * `planned` — the read the transfer was planned from, made under the same allocation lock.
 *
 * The sub-workspace's entry is written only when it is not newer than the transfer's start; its
 * `used` / `drafted` stay the entry's own (the planning read recorded them, staged units were added
 * since) or, without an entry that holds a read, the planning read's. The parent's entry, when there is one older
 * than the transfer, has its total moved by the difference and keeps its `observed_at`: it is
 * still that read, corrected by a change Serenity made itself (an entry holding only the parent's
 * metering has no totals to correct). Answers whether the sub-workspace's
 * entry was written (`false`: a newer observation already stands).
 */
export async function recordTransferAnswer(
  db: DbExecutor,
  transfer: {
    orgId: string;
    subWorkspaceId: string;
    planned: WorkspaceResources;
    targets: TransferTargets;
    observedAt: Date;
  },
): Promise<boolean> {
  const { planned, targets } = transfer;
  const projectsTotal = targets.projects ?? planned.projects.total;
  const promptsTotal = targets.prompts ?? planned.prompts.total;
  const projectsDelta = projectsTotal - planned.projects.total;
  const promptsDelta = promptsTotal - planned.prompts.total;
  const observedAt = transfer.observedAt.toISOString();
  // An entry that holds no read (only what the fold keeps on it) takes the planning read's usage.
  const read = sql`r.observed_at > ${NOT_READ_OBSERVED_AT.toISOString()}::timestamptz`;
  const result = await db.execute<{ workspace_id: string }>(sql`
    with sub as (
      insert into resource_observations as r (
        org_id, workspace_id, projects_used, projects_drafted, projects_total,
        prompts_used, prompts_drafted, prompts_total, observed_at
      ) values (
        ${transfer.orgId}::uuid, ${transfer.subWorkspaceId},
        ${planned.projects.used}, ${planned.projects.drafted}, ${projectsTotal},
        ${planned.prompts.used}, ${planned.prompts.drafted}, ${promptsTotal}, ${observedAt}::timestamptz
      )
      on conflict (org_id, workspace_id) do update set
        projects_used = case when ${read} then r.projects_used else excluded.projects_used end,
        projects_drafted = case when ${read} then r.projects_drafted else excluded.projects_drafted end,
        prompts_used = case when ${read} then r.prompts_used else excluded.prompts_used end,
        prompts_drafted = case when ${read} then r.prompts_drafted else excluded.prompts_drafted end,
        projects_total = excluded.projects_total,
        prompts_total = excluded.prompts_total,
        observed_at = excluded.observed_at
      where r.observed_at <= excluded.observed_at
      returning workspace_id
    ), parent as (
      update resource_observations p set
        projects_total = p.projects_total - ${projectsDelta},
        prompts_total = p.prompts_total - ${promptsDelta}
      from orgs o
      where o.id = ${transfer.orgId}::uuid
        and p.org_id = o.id
        and p.workspace_id = o.parent_workspace_id
        and p.observed_at <= ${observedAt}::timestamptz
        and p.observed_at > ${NOT_READ_OBSERVED_AT.toISOString()}::timestamptz
      returning p.workspace_id
    )
    select workspace_id from sub
  `);
  return result.rows.length > 0;
}
