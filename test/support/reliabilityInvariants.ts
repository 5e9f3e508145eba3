import { eq, sql } from "drizzle-orm";
import { expect } from "vitest";

import type { Database } from "../../src/db/database.ts";
import { brands, jobs, markets } from "../../src/db/schema.ts";
import type { UpstreamObservation } from "../../src/operations/observeUpstream.ts";
import type { SimulatorDump } from "../../src/simulator/createSimulator.ts";

/**
 * The invariants every fault test of test/reliability ends on: the pool conserved,
 * zero orphans, every job terminal or progressing, every brand consistent with upstream. They read
 * the database through its drizzle handle: a TestDatabase, or a test's own (`openDatabase`).
 */
type WithDb = Pick<Database, "db">;

export async function liveJobCount(db: WithDb): Promise<number> {
  const rows = await db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from ${jobs} where status = 'IN_PROGRESS'`,
  );
  return rows.rows[0]!.n;
}

/** What the observation calls orphans (parked and zombie sub-workspaces are not). */
export function orphansOf(observation: UpstreamObservation): string[] {
  return [
    ...observation.subWorkspaces
      .filter((workspace) => workspace.state === "orphan" || workspace.state === "unread")
      .map((workspace) => `subWorkspace ${workspace.id} "${workspace.title}" (${workspace.state})`),
    ...observation.projects.map(
      (project) => `project ${project.id} "${project.name}" in ${project.workspaceId}`,
    ),
  ];
}

export async function expectInvariants(
  db: WithDb,
  input: {
    orgId: string;
    parentWorkspaceId: string;
    dump: SimulatorDump;
    observation: UpstreamObservation;
    pool: { projects: number; prompts: number };
  },
): Promise<void> {
  const { dump, parentWorkspaceId } = input;
  // 1. The pool is conserved: the parent's total plus every child's total is the whole pool.
  const family = dump.workspaces.filter(
    (workspace) => workspace.id === parentWorkspaceId || workspace.parent_id === parentWorkspaceId,
  );
  const sum = (dimension: "projects" | "prompts") =>
    family.reduce((total, workspace) => total + workspace.resources[dimension].total, 0);
  expect({ projects: sum("projects"), prompts: sum("prompts") }).toEqual(input.pool);

  // 2. Zero orphans, and no failed rollback still pending.
  expect(orphansOf(input.observation)).toEqual([]);
  const pendingRollbacks = await db.db
    .select({ id: markets.id })
    .from(markets)
    .where(sql`${markets.status} = 'creating' and ${markets.projectId} is not null`);
  expect(pendingRollbacks).toEqual([]);

  // 3. Every job terminal (the callers wait for that; progressing ones are waited out first).
  expect(await liveJobCount(db)).toBe(0);

  // 4. Every brand consistent with upstream: its pointer exists and is ready; each of its market
  // rows' projects exists in that workspace; each project there is tracked by exactly one row.
  const brandRows = await db.db.select().from(brands).where(eq(brands.orgId, input.orgId));
  const projectsByWorkspace = new Map<string, string[]>();
  for (const project of dump.projects) {
    projectsByWorkspace.set(project.workspace_id, [
      ...(projectsByWorkspace.get(project.workspace_id) ?? []),
      String(project.id),
    ]);
  }
  for (const brand of brandRows) {
    if (brand.status === "deleted" || !brand.subWorkspaceId) continue;
    const workspace = dump.workspaces.find((candidate) => candidate.id === brand.subWorkspaceId);
    expect(workspace, `brand ${brand.id}'s sub-workspace exists upstream`).toBeDefined();
    const rows = await db.db.select().from(markets).where(eq(markets.brandId, brand.id));
    const tracked = rows
      .filter((row) => row.workspaceId === brand.subWorkspaceId)
      .map((row) => row.projectId);
    const upstream = projectsByWorkspace.get(brand.subWorkspaceId) ?? [];
    expect([...upstream].sort(), `brand ${brand.id}: upstream projects = tracked projects`).toEqual(
      tracked.filter((id): id is string => id !== null).sort(),
    );
  }
}
