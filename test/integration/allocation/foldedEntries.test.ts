import { randomUUID } from "node:crypto";

import { sql } from "drizzle-orm";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { acquireAllocationLock, readSectionStart } from "../../../src/db/allocation/acquireAllocationLock.ts";
import { extendPublishWindow } from "../../../src/db/allocation/extendPublishWindow.ts";
import { findLastPublish } from "../../../src/db/allocation/findLastPublish.ts";
import { loosenPublishBound } from "../../../src/db/allocation/loosenPublishBound.ts";
import { recordPublish } from "../../../src/db/allocation/recordPublish.ts";
import { recordSection } from "../../../src/db/allocation/recordSection.ts";
import { releaseAllocationLock } from "../../../src/db/allocation/releaseAllocationLock.ts";
import { beginAnnouncement } from "../../../src/db/resourceObservations/beginAnnouncement.ts";
import { endAnnouncement } from "../../../src/db/resourceObservations/endAnnouncement.ts";
import { findPoolFreeBounds } from "../../../src/db/resourceObservations/findPoolFreeBounds.ts";
import { forgetObservations } from "../../../src/db/resourceObservations/forgetObservations.ts";
import { listOrgObservations } from "../../../src/db/resourceObservations/listOrgObservations.ts";
import { holdsResources } from "../../../src/db/resourceObservations/observationRow.ts";
import { recordPoolFreeBound } from "../../../src/db/resourceObservations/recordPoolFreeBound.ts";
import { recordResourcesRead } from "../../../src/db/resourceObservations/recordResourcesRead.ts";
import { recordTransferAnswer } from "../../../src/db/resourceObservations/recordTransferAnswer.ts";
import type { WorkspaceResources } from "../../../src/domain/allocation.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * The fold (issue 38, docs/decisions/0046–0049): a sub-workspace's last publish and model adds,
 * and the pool's free bounds and lowerings, live on the workspace's entry of the resources record
 * (three tables of their own held them until migration 0027 dropped them). An entry a write makes
 * before any read of its workspace is one no view shows, and the first read fills it.
 */

const LAG_MS = 30_000;
const HOLDER = randomUUID();
const HOLD_MS = 120_000;
const T0 = Date.parse("2026-06-01T09:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000);

// A database per test: each starts from no entries at all.
let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await db?.destroy();
});

async function newOrg(): Promise<{ orgId: string; parent: string }> {
  const orgId = randomUUID();
  const parent = `parent-${orgId.slice(0, 8)}`;
  await db.db.execute(sql`
    insert into orgs (id, name, parent_workspace_id, created_at, updated_at)
    values (${orgId}::uuid, ${`Org ${orgId}`}, ${parent}, now(), now())
  `);
  return { orgId, parent };
}

const usage = (used: number, drafted: number, total: number): WorkspaceResources => ({
  projects: { used: 1, drafted: 0, total: 2 },
  prompts: { used, drafted, total },
});

/** What an entry holds of the fold: its publish and its announcements. */
async function foldOf(workspaceId: string) {
  const result = await db.db.execute<{
    published_at: string | null;
    prompts_used_bound: number | null;
    bound_loose: boolean;
    version: number;
    announced: number;
    prompts_free_below: number | null;
  }>(sql`select published_at, prompts_used_bound, bound_loose, version, announced, prompts_free_below
    from resource_observations where workspace_id = ${workspaceId}`);
  const row = result.rows[0]!;
  return { ...row, published_at: row.published_at === null ? null : new Date(row.published_at) };
}

describe("every write lands on the workspace's entry", () => {
  it("takes every publish: unguarded, with a section's read and basis, staged, restarted, loosened", async () => {
    const { orgId } = await newOrg();
    const sub = `sw-${randomUUID().slice(0, 8)}`;
    const publish = { orgId, subWorkspaceId: sub, publishLagMs: LAG_MS };

    // A publish outside a section, before any read: the entry is made, and no view shows it.
    await recordPublish(db.db, { ...publish, now: at(0) });
    expect(await foldOf(sub)).toMatchObject({ published_at: at(0), prompts_used_bound: null });
    const [made] = await listOrgObservations(db.db, orgId);
    expect(made?.workspaceId).toBe(sub);
    expect(holdsResources(made!)).toBe(false);

    // A section under the lease: its read, staged units and a publish with a basis, chained onto
    // the first (inside its window); the read fills the entry and keeps the publish.
    const lease = await acquireAllocationLock(db.db, {
      subWorkspaceId: sub,
      holder: HOLDER,
      now: at(5),
      ttlMs: 6_000,
      publishLagMs: LAG_MS,
    });
    expect(lease.taken).toBe(true);
    const written = await recordSection(db.db, {
      orgId,
      subWorkspaceId: sub,
      read: { resources: usage(10, 5, 100), at: at(5) },
      staged: { projects: 0, prompts: 20 },
      stagedAt: at(6),
      lockedAt: at(5),
      publishLagMs: LAG_MS,
      now: at(6),
      publishing: true,
      basis: {
        readAt: at(5),
        usedBefore: { projects: 1, prompts: 10 },
        moved: { projects: 0, prompts: 25 },
        version: 0,
      },
    });
    expect(written).toBe(true);
    // Chained onto an unguarded publish (inside its window): nothing bounds what the read missed.
    expect(await foldOf(sub)).toMatchObject({ published_at: at(6), prompts_used_bound: null });
    const [filled] = await listOrgObservations(db.db, orgId);
    expect(filled!.resources.prompts).toEqual({ used: 10, drafted: 25, total: 100 });

    // The same section's next publish: only staged units left to write.
    await recordSection(db.db, {
      orgId,
      subWorkspaceId: sub,
      staged: { projects: 0, prompts: 3 },
      stagedAt: at(7),
      lockedAt: at(5),
      publishLagMs: LAG_MS,
      now: at(7),
      publishing: true,
      basis: {
        readAt: at(5),
        usedBefore: { projects: 1, prompts: 10 },
        moved: { projects: 0, prompts: 3 },
      },
    });
    expect((await foldOf(sub)).published_at).toEqual(at(7));

    // Given back with the window restarted; then restarted again outside the lease.
    expect(
      await releaseAllocationLock(db.db, {
        subWorkspaceId: sub,
        holder: HOLDER,
        restartPublishWindow: true,
        now: at(8),
      }),
    ).toBe(true);
    expect((await foldOf(sub)).published_at).toEqual(at(8));
    await extendPublishWindow(db.db, sub, at(9));
    expect((await foldOf(sub)).published_at).toEqual(at(9));

    // A delete inside the window loosens the bound; outside it, nothing.
    expect(await loosenPublishBound(db.db, sub, { publishLagMs: LAG_MS, now: at(10) })).toBe(true);
    expect((await foldOf(sub)).bound_loose).toBe(true);
    expect(await loosenPublishBound(db.db, sub, { publishLagMs: LAG_MS, now: at(100) })).toBe(false);

    // A section whose read is older than the entry: its figures stay, its publish is taken.
    const stale = await recordSection(db.db, {
      orgId,
      subWorkspaceId: sub,
      read: { resources: usage(0, 0, 100), at: at(1) },
      staged: { projects: 0, prompts: 0 },
      stagedAt: at(1),
      lockedAt: at(1),
      publishLagMs: LAG_MS,
      now: at(60),
      publishing: true,
    });
    expect(stale).toBe(false);
    // A publish outside the window starts one of its own: the loose flag cleared.
    expect(await foldOf(sub)).toMatchObject({ published_at: at(60), bound_loose: false });
    const [kept] = await listOrgObservations(db.db, orgId);
    expect(kept!.resources.prompts.used).toBe(10);
    expect(kept!.observedAt).toEqual(at(7));
  });

  it('a section\'s staged-only publish lands on an entry forgotten meanwhile, made "not read" again', async () => {
    const { orgId } = await newOrg();
    const sub = `sw-${randomUUID().slice(0, 8)}`;
    const section = {
      orgId,
      subWorkspaceId: sub,
      staged: { projects: 0, prompts: 1 },
      stagedAt: at(2),
      lockedAt: at(1),
      publishLagMs: LAG_MS,
    };
    await recordSection(db.db, {
      ...section,
      now: undefined,
      publishing: false,
      read: { resources: usage(10, 0, 100), at: at(1) },
    });
    // Forgotten (a family read that no longer lists the workspace), then the section publishes.
    await db.db.execute(sql`delete from resource_observations where workspace_id = ${sub}`);
    const written = await recordSection(db.db, { ...section, now: at(3), publishing: true });
    expect(written).toBe(false); // nothing staged on an entry that holds no read
    expect((await foldOf(sub)).published_at).toEqual(at(3));
    expect((await listOrgObservations(db.db, orgId)).map(holdsResources)).toEqual([false]);
  });

  it("takes every model add's announcement: version, in flight, hold", async () => {
    const { orgId } = await newOrg();
    const sub = `sw-${randomUUID().slice(0, 8)}`;
    const ids = { orgId, workspaceId: sub };
    await beginAnnouncement(db.db, ids, { now: at(0), holdMs: HOLD_MS });
    expect(await foldOf(sub)).toMatchObject({ version: 1, announced: 1 });
    await endAnnouncement(db.db, ids);
    expect(await foldOf(sub)).toMatchObject({ version: 2, announced: 0 });
    // Begun and never ended: after the hold the next begin counts from one again.
    await beginAnnouncement(db.db, ids, { now: at(2), holdMs: HOLD_MS });
    await beginAnnouncement(db.db, ids, { now: at(200), holdMs: HOLD_MS });
    expect(await foldOf(sub)).toMatchObject({ version: 4, announced: 1 });
    await endAnnouncement(db.db, ids);
    expect(await foldOf(sub)).toMatchObject({ version: 5, announced: 0 });
  });

  it("takes every lowering and every bound learned, on the parent's entry; a refusal the version rules out is refused", async () => {
    const { orgId, parent } = await newOrg();
    const window = { now: at(0), ttlMs: 60_000 };
    const known = await findPoolFreeBounds(db.db, orgId, { ...window, freshMs: 30_000 });
    // A read of the parent teaches both dimensions.
    for (const dimension of ["projects", "prompts"] as const) {
      expect(
        await recordPoolFreeBound(
          db.db,
          {
            orgId,
            dimension,
            freeBelow: 5,
            sentAgoMs: 10,
            source: "read",
            version: known.version,
          },
          window,
        ),
      ).toBe(true);
    }
    expect(await foldOf(parent)).toMatchObject({ version: 0, announced: 0, prompts_free_below: 5 });
    // A lowering of prompts only, then of both; one ends.
    await beginAnnouncement(db.db, { orgId }, { now: at(1), holdMs: HOLD_MS }, { prompts: 100 });
    expect(await foldOf(parent)).toMatchObject({ version: 1, announced: 1, prompts_free_below: 105 });
    await beginAnnouncement(db.db, { orgId }, { now: at(2), holdMs: HOLD_MS }, { projects: 1, prompts: 50 });
    expect(await foldOf(parent)).toMatchObject({ version: 2, announced: 2, prompts_free_below: 155 });
    await endAnnouncement(db.db, { orgId });
    expect(await foldOf(parent)).toMatchObject({ version: 3, announced: 1 });
    // A refusal quoting the version read before the lowerings: not recorded, on either side.
    const refusal = (version: number, seconds: number) =>
      recordPoolFreeBound(
        db.db,
        { orgId, dimension: "prompts", freeBelow: 3, sentAgoMs: 0, source: "refused", version },
        { now: at(seconds), ttlMs: 60_000 },
      );
    expect(await refusal(known.version, 4)).toBe(false);
    expect((await foldOf(parent)).prompts_free_below).toBe(155);
    await endAnnouncement(db.db, { orgId });
    const after = await findPoolFreeBounds(db.db, orgId, { now: at(6), ttlMs: 60_000, freshMs: 30_000 });
    expect(await refusal(after.version, 6)).toBe(true);
    expect(await foldOf(parent)).toMatchObject({ version: 4, announced: 0, prompts_free_below: 3 });
  });

  it("an entry holding no read takes a read's figures and a transfer answer's planning usage, keeping what the fold put on it", async () => {
    const { orgId } = await newOrg();
    const sub = `sw-${randomUUID().slice(0, 8)}`;
    await beginAnnouncement(db.db, { orgId, workspaceId: sub }, { now: at(0), holdMs: HOLD_MS });
    await recordTransferAnswer(db.db, {
      orgId,
      subWorkspaceId: sub,
      planned: usage(40, 7, 50),
      targets: { prompts: 100 },
      observedAt: at(1),
    });
    const [answered] = await listOrgObservations(db.db, orgId);
    expect(answered!.resources.prompts).toEqual({ used: 40, drafted: 7, total: 100 });
    await recordResourcesRead(db.db, {
      orgId,
      workspaceId: sub,
      resources: usage(41, 6, 100),
      observedAt: at(2),
      readAgeMs: 0,
      publishLagMs: LAG_MS,
      now: at(2),
    });
    const [read] = await listOrgObservations(db.db, orgId);
    expect(read!.resources.prompts).toEqual({ used: 41, drafted: 6, total: 100 });
    expect(await foldOf(sub)).toMatchObject({ version: 1, announced: 1 });
  });
});

describe("the entries are what is read", () => {
  it("answers the lease's start, the last publish, a read's lag and the pool's bounds from the entries alone", async () => {
    const { orgId } = await newOrg();
    const sub = `sw-${randomUUID().slice(0, 8)}`;
    await recordResourcesRead(db.db, {
      orgId,
      workspaceId: sub,
      resources: usage(10, 20, 100),
      observedAt: at(0),
      readAgeMs: 0,
      publishLagMs: LAG_MS,
      now: at(0),
    });
    await recordPublish(db.db, { orgId, subWorkspaceId: sub, now: at(1), publishLagMs: LAG_MS });
    await beginAnnouncement(db.db, { orgId, workspaceId: sub }, { now: at(2), holdMs: HOLD_MS });
    const known = await findPoolFreeBounds(db.db, orgId, { now: at(2), ttlMs: 60_000, freshMs: 30_000 });
    const bound = { orgId, freeBelow: 7, sentAgoMs: 0, source: "read" as const, version: known.version };
    expect(
      await recordPoolFreeBound(db.db, { ...bound, dimension: "prompts" }, { now: at(2), ttlMs: 60_000 }),
    ).toBe(true);

    const start = await readSectionStart(db.db, sub, at(3), LAG_MS);
    expect(start.lastPublish).toMatchObject({ publishedAt: at(1), inWindow: true });
    expect(start.entry).toEqual({ version: 1, announced: true });
    expect(await findLastPublish(db.db, sub, { now: at(3), publishLagMs: LAG_MS })).toMatchObject({
      publishedAt: at(1),
    });
    // A read inside the publish's window that lost the drafted units it turned into used: usage held.
    await recordResourcesRead(db.db, {
      orgId,
      workspaceId: sub,
      resources: usage(10, 0, 100),
      observedAt: at(4),
      readAgeMs: 0,
      publishLagMs: LAG_MS,
      now: at(4),
    });
    const [entry] = (await listOrgObservations(db.db, orgId)).filter((row) => row.workspaceId === sub);
    expect(entry!.resources.prompts).toEqual({ used: 30, drafted: 0, total: 100 });
    const pool = await findPoolFreeBounds(db.db, orgId, { now: at(4), ttlMs: 60_000, freshMs: 30_000 });
    expect(pool.bounds).toEqual({ prompts: 7 });
    expect(
      await recordPoolFreeBound(
        db.db,
        { ...bound, dimension: "projects", freeBelow: 3, version: pool.version },
        { now: at(4), ttlMs: 60_000 },
      ),
    ).toBe(true);
    expect(
      (await findPoolFreeBounds(db.db, orgId, { now: at(4), ttlMs: 60_000, freshMs: 30_000 })).bounds,
    ).toEqual({
      projects: 3,
      prompts: 7,
    });
  });

  it("a bound learned and a lowering begun while another session holds the parent's entry both land: no lock cycle", async () => {
    const { orgId, parent } = await newOrg();
    await recordResourcesRead(db.db, {
      orgId,
      workspaceId: parent,
      resources: usage(1, 0, 10),
      observedAt: at(0),
      readAgeMs: 0,
      publishLagMs: LAG_MS,
      now: at(0),
    });
    const waiting = async () =>
      Number(
        (
          await db.db.execute<{ n: string }>(sql`select count(*) as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`)
        ).rows[0]!.n,
      );
    // A third session holds the parent's entry, so both statements are under way before either
    // takes it: the bound first, then the lowering.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query(
        "select 1 from resource_observations where org_id = $1 and workspace_id = $2 for update",
        [orgId, parent],
      );
      const bound = recordPoolFreeBound(
        db.db,
        { orgId, dimension: "prompts", freeBelow: 9, sentAgoMs: 0, source: "read", version: 0 },
        { now: at(1), ttlMs: 60_000 },
      );
      await waitFor(async () => (await waiting()) === 1, { what: "the bound waiting" });
      const lowering = beginAnnouncement(db.db, { orgId }, { now: at(1), holdMs: HOLD_MS }, { prompts: 5 });
      await waitFor(async () => (await waiting()) === 2, { what: "the lowering waiting" });
      await holder.query("commit");
      // Each locks the entry alone (the fold's second release, which locked a table's row too, was
      // red here until its bound's statement made that row first: "deadlock detected").
      expect(await Promise.all([bound, lowering])).toEqual([true, undefined]);
    } finally {
      await holder.end();
    }
    const known = await findPoolFreeBounds(db.db, orgId, { now: at(2), ttlMs: 60_000, freshMs: 30_000 });
    expect(known.bounds).toEqual({ prompts: 14 });
  });

  it("one version for the pool: a lowering of prompts alone voids what a call sent before it taught of projects", async () => {
    const { orgId } = await newOrg();
    const window = { now: at(0), ttlMs: 60_000 };
    const known = await findPoolFreeBounds(db.db, orgId, { ...window, freshMs: 30_000 });
    await beginAnnouncement(db.db, { orgId }, { now: at(1), holdMs: HOLD_MS }, { prompts: 10 });
    await endAnnouncement(db.db, { orgId });
    const lesson = (version: number) =>
      recordPoolFreeBound(
        db.db,
        { orgId, dimension: "projects", freeBelow: 2, sentAgoMs: 0, source: "refused", version },
        { now: at(2), ttlMs: 60_000 },
      );
    expect(await lesson(known.version)).toBe(false);
    const now = await findPoolFreeBounds(db.db, orgId, { now: at(2), ttlMs: 60_000, freshMs: 30_000 });
    expect(now.bounds).toEqual({});
    expect(await lesson(now.version)).toBe(true);
  });

  it("keeps an entry the family read no longer lists while its publish's window runs or an announcement holds", async () => {
    const { orgId, parent } = await newOrg();
    const [published, announcing, gone] = ["a", "b", "c"].map(
      (name) => `sw-${name}-${randomUUID().slice(0, 6)}`,
    );
    for (const id of [published, announcing, gone]) {
      await recordResourcesRead(db.db, {
        orgId,
        workspaceId: id!,
        resources: usage(1, 0, 10),
        observedAt: at(0),
        readAgeMs: 0,
        publishLagMs: LAG_MS,
        now: at(0),
      });
    }
    await recordPublish(db.db, { orgId, subWorkspaceId: published!, now: at(1), publishLagMs: LAG_MS });
    await beginAnnouncement(db.db, { orgId, workspaceId: announcing! }, { now: at(1), holdMs: HOLD_MS });
    const forget = (seconds: number) =>
      forgetObservations(db.db, { orgId, keep: [parent] }, { now: at(seconds), publishLagMs: LAG_MS });
    const left = async () => (await listOrgObservations(db.db, orgId)).map((row) => row.workspaceId).sort();
    expect(await forget(2)).toBe(1);
    expect(await left()).toEqual([published, announcing].sort());
    // The window over, the publish's entry goes; the announcement holds until its end or its hold.
    expect(await forget(1 + LAG_MS / 1000 + 1)).toBe(1);
    expect(await left()).toEqual([announcing]);
    expect(await forget(1 + HOLD_MS / 1000 + 1)).toBe(1);
    expect(await left()).toEqual([]);
    // A brand's sub-workspace the read missed stays whatever: its version must not start again.
    const branded = `sw-d-${randomUUID().slice(0, 6)}`;
    await db.db.execute(sql`
      insert into brands (org_id, name, sub_workspace_id, status, created_at, updated_at)
      values (${orgId}::uuid, 'Branded', ${branded}, 'active', now(), now())
    `);
    await beginAnnouncement(db.db, { orgId, workspaceId: branded }, { now: at(200), holdMs: HOLD_MS });
    await endAnnouncement(db.db, { orgId, workspaceId: branded });
    expect(await forget(400)).toBe(0);
    expect(await left()).toEqual([branded]);
  });
});
