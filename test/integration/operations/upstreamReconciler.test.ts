import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { gatewayAllocationUpstream } from "../../../src/allocation/gatewayAllocationUpstream.ts";
import { brandLeases, markets } from "../../../src/db/schema.ts";
import { claimReconcileRun } from "../../../src/db/upstreamReconcile/claimReconcileRun.ts";
import { finishReconcileRun } from "../../../src/db/upstreamReconcile/finishReconcileRun.ts";
import { runAudit } from "../../../src/operations/audit.ts";
import { UpstreamReconciler } from "../../../src/operations/upstreamReconciler.ts";
import { promptCounterOf } from "../../../src/runtime/upstreamReconcilerOf.ts";
import {
  startUpstreamReconcileWorld,
  TOKEN,
  type UpstreamReconcileWorld,
} from "../../support/upstreamReconcileWorld.ts";

const GRACE_MS = 10 * 60_000;

/**
 * The upstream reconciler on the fake clock (spec/provisioning.md §9): what a failed rollback and a
 * race between processes leave upstream is reclaimed one grace period after they are first seen, with ledger rows
 * `reconcile`, and nothing that is tracked, claimed, parked or not Serenity's is ever touched.
 */
describe("the upstream reconciler", () => {
  let world: UpstreamReconcileWorld;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    world = await startUpstreamReconcileWorld();
    // A tracked brand with a tracked market project, a project a failed rollback left behind
    // (a failed rollback), and a project Serenity did not name.
    const lumiere = await world.brand("Lumiere", { totals: { projects: 3, prompts: 200 } });
    ids.lumiere = lumiere.workspaceId;
    ids.tracked = await world.project(lumiere.workspaceId, "Lumiere US en");
    await world.market(lumiere.brandId, lumiere.workspaceId, ids.tracked);
    ids.leftover = await world.project(lumiere.workspaceId, "Lumiere FR fr");
    ids.handMade = await world.project(lumiere.workspaceId, "Hand made");
    // A second sub-workspace of the same brand holding a live project (a race between processes).
    ids.duplicate = await world.subWorkspace("Lumiere", { projects: 3, prompts: 300 });
    ids.duplicateProject = await world.project(ids.duplicate, "Lumiere DE de");
    // Not Serenity's: another team's sub-workspace, whatever its projects are called.
    ids.foreign = await world.subWorkspace("Marketing team", { projects: 2, prompts: 100 });
    ids.foreignProject = await world.project(ids.foreign, "Lumiere IT it");
    // Claimed: a brand whose provisioning attempt is pending may be about to adopt it.
    const verdant = await world.brand("Verdant", { tracked: false, provisioningStatus: "pending" });
    ids.claimed = verdant.workspaceId;
    ids.claimedProject = await world.project(verdant.workspaceId, "Verdant US en");
    // Parked: what a deactivation leaves (empty, at the floor 1 / 1).
    const orchid = await world.brand("Orchid", {
      tracked: false,
      status: "pending",
      totals: { projects: 1, prompts: 1 },
    });
    ids.parked = orchid.workspaceId;
  });
  afterAll(() => world.close());

  it("first only sees: the orphans are recorded, nothing upstream changes inside the grace period", async () => {
    await world.sim.clearCalls();
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, {
      graceMs: GRACE_MS,
    });
    expect(report.orphans).toEqual({ subWorkspaces: 1, projects: 1 });
    expect(report.waiting).toBe(2);
    expect(report.reclaimed).toEqual({ subWorkspaces: 0, projects: 0 });
    expect(await world.mutatingCalls()).toEqual([]);
    expect(await world.ledger()).toEqual([]);

    const observation = await world.reconciler.observe(world.org, TOKEN);
    const states = Object.fromEntries(
      observation.subWorkspaces.map((workspace) => [workspace.id, workspace.state]),
    );
    expect(states).toEqual({
      [ids.lumiere!]: "tracked",
      [ids.duplicate!]: "orphan",
      [ids.claimed!]: "claimed",
      [ids.parked!]: "parked",
    });
    expect(observation.projects.map((project) => project.id)).toEqual([ids.leftover]);
  });

  it("serenity audit lists the orphans with the units they hold, and the parked sub-workspace", async () => {
    await world.sim.clearCalls();
    const report = await runAudit(
      {
        db: world.runtime.database.db,
        logger: world.runtime.logger,
        poolView: world.runtime.services.poolView,
        orphans: {
          observe: (org, bearer) => world.reconciler.observe(org, bearer),
          prompts: promptCounterOf(world.runtime),
        },
      },
      { bearer: TOKEN, orgIds: [world.orgId], now: () => world.clock.now() },
    );
    expect(await world.mutatingCalls()).toEqual([]);
    const org = report.orgs[0]!;
    const byId = Object.fromEntries(org.orphans.map((orphan) => [orphan.id, orphan]));
    expect(byId[ids.duplicate!]).toMatchObject({
      kind: "subWorkspace",
      state: "orphan",
      name: "Lumiere",
      projects: 1,
      units: { projects: { total: 3, drafted: 1 }, prompts: { total: 300 } },
    });
    expect(byId[ids.leftover!]).toMatchObject({
      kind: "project",
      state: "orphan",
      workspaceId: ids.lumiere,
      name: "Lumiere FR fr",
      publishStatus: "draft",
      units: { projects: { total: 1, drafted: 1 }, prompts: { total: 0 } },
    });
    expect(byId[ids.parked!]).toMatchObject({ kind: "subWorkspace", state: "parked" });
    expect(Object.keys(byId).sort()).toEqual([ids.duplicate, ids.leftover, ids.parked].sort());
    expect(org.orphanSum).toEqual({ projects: 3 + 1, prompts: 300 });
  });

  it("a grace period later reclaims both: the duplicate emptied and released, the leftover deleted, the pool conserved", async () => {
    const freeBefore = await world.parentFree();
    world.clock.advance(GRACE_MS);
    await world.sim.clearCalls();
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, {
      graceMs: GRACE_MS,
    });
    expect(report.reclaimed).toEqual({ subWorkspaces: 1, projects: 1 });
    expect(report.failed).toBe(0);

    // The duplicate: its project deleted, its allocation down to the deactivation floor (3/300 → 1/1).
    expect(await world.projectIds(ids.duplicate!)).toEqual([]);
    expect(await world.totals(ids.duplicate!)).toEqual({ projects: 1, prompts: 1 });
    // The brand's sub-workspace: the leftover deleted, released to the release floor above usage (3/200 → 2/100).
    expect((await world.projectIds(ids.lumiere!)).sort()).toEqual([ids.tracked, ids.handMade].sort());
    expect(await world.totals(ids.lumiere!)).toEqual({ projects: 2, prompts: 100 });
    // Everything returned is free in the parent again: 2 + 1 projects, 299 + 100 prompts.
    expect(report.returned).toEqual({ projects: 3, prompts: 399 });
    const freeAfter = await world.parentFree();
    expect({
      projects: freeAfter.projects - freeBefore.projects,
      prompts: freeAfter.prompts - freeBefore.prompts,
    }).toEqual(report.returned);

    // Untouched: not Serenity's, claimed, parked.
    expect(await world.projectIds(ids.foreign!)).toEqual([ids.foreignProject]);
    expect(await world.totals(ids.foreign!)).toEqual({ projects: 2, prompts: 100 });
    expect(await world.projectIds(ids.claimed!)).toEqual([ids.claimedProject]);
    expect(await world.totals(ids.parked!)).toEqual({ projects: 1, prompts: 1 });
    const touched = (await world.mutatingCalls()).join("\n");
    for (const id of [ids.foreign, ids.claimed, ids.parked, ids.tracked, ids.handMade])
      expect(touched).not.toContain(id);

    const ledger = (await world.ledger()).map((row) => ({
      workspace: row.subWorkspaceId,
      outcome: row.outcome,
      after: row.after,
    }));
    expect(ledger).toEqual(
      expect.arrayContaining([
        { workspace: ids.duplicate, outcome: "projectDeleted", after: null },
        { workspace: ids.duplicate, outcome: "applied", after: { projects: 1, prompts: 1 } },
        { workspace: ids.lumiere, outcome: "projectDeleted", after: null },
        { workspace: ids.lumiere, outcome: "applied", after: { projects: 2, prompts: 100 } },
      ]),
    );
    expect(ledger).toHaveLength(4);
  });

  it("then converges: the next pass finds no orphan and writes nothing", async () => {
    world.clock.advance(GRACE_MS);
    await world.sim.clearCalls();
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, {
      graceMs: GRACE_MS,
    });
    expect(report.orphans).toEqual({ subWorkspaces: 0, projects: 0 });
    expect(await world.mutatingCalls()).toEqual([]);
    expect(await world.ledger()).toHaveLength(4);
    const observation = await world.reconciler.observe(world.org, TOKEN);
    expect(observation.subWorkspaces.find((workspace) => workspace.id === ids.duplicate)?.state).toBe(
      "parked",
    );
  });

  it("spares an orphan that work in flight claims before its grace ends (a market reservation in its workspace)", async () => {
    const lumiere = (await world.reconciler.observe(world.org, TOKEN)).claims.brands.find(
      (brand) => brand.name === "Lumiere",
    )!;
    await world.runtime.gateway.users.transferResources(TOKEN, ids.lumiere!, { projects: 3 });
    const late = await world.project(ids.lumiere!, "Lumiere ES es");
    await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    await world.market(lumiere.id, ids.lumiere!, null, "creating");
    world.clock.advance(GRACE_MS);
    await world.sim.clearCalls();
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(report.orphans.projects).toBe(0);
    expect(await world.projectIds(ids.lumiere!)).toContain(late);
    expect(await world.mutatingCalls()).toEqual([]);
  });

  it("runs an org in one process at a time, a period apart (the run lease)", async () => {
    const db = world.runtime.database.db;
    const now = world.clock.now();
    const run = { orgId: world.orgId, now, leaseMs: 60_000, periodMs: 300_000 };
    expect(await claimReconcileRun(db, { ...run, holder: "00000000-0000-4000-8000-000000000001" })).toBe(
      true,
    );
    expect(await claimReconcileRun(db, { ...run, holder: "00000000-0000-4000-8000-000000000002" })).toBe(
      false,
    );
    expect(
      await finishReconcileRun(db, {
        orgId: world.orgId,
        holder: "00000000-0000-4000-8000-000000000002",
        now,
        calls: 0,
      }),
    ).toBe(false);
    expect(
      await finishReconcileRun(db, {
        orgId: world.orgId,
        holder: "00000000-0000-4000-8000-000000000001",
        now,
        calls: 0,
      }),
    ).toBe(true);
    // Finished: not due again until a period later, whoever asks.
    expect(await claimReconcileRun(db, { ...run, holder: "00000000-0000-4000-8000-000000000002" })).toBe(
      false,
    );
    const later = new Date(now.getTime() + 300_000);
    expect(
      await claimReconcileRun(db, { ...run, now: later, holder: "00000000-0000-4000-8000-000000000002" }),
    ).toBe(true);
    // A holder that died: its lease expires and another process takes the run.
    const muchLater = new Date(later.getTime() + 60_001 + 300_000);
    expect(
      await claimReconcileRun(db, { ...run, now: muchLater, holder: "00000000-0000-4000-8000-000000000003" }),
    ).toBe(true);
  });

  it("finishes a failed rollback (ADR 0015's kept reservation) once it is older than the grace: project deleted, row dropped", async () => {
    const lumiere = (await world.reconciler.observe(world.org, TOKEN)).claims.brands.find(
      (brand) => brand.name === "Lumiere",
    )!;
    await world.runtime.gateway.users.transferResources(TOKEN, ids.lumiere!, { projects: 4 });
    const kept = await world.project(ids.lumiere!, "Lumiere NL nl");
    await world.market(lumiere.id, ids.lumiere!, kept, "creating");
    const young = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(young.rollbacksRetried).toBe(0);
    expect(await world.projectIds(ids.lumiere!)).toContain(kept);

    world.clock.advance(GRACE_MS);
    const old = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(old.rollbacksRetried).toBe(1);
    expect(await world.projectIds(ids.lumiere!)).not.toContain(kept);
    const rows = await world.runtime.database.db.select().from(markets).where(eq(markets.projectId, kept));
    expect(rows).toEqual([]);
    expect((await world.ledger()).filter((row) => row.outcome === "projectDeleted")).toHaveLength(3);
  });
});

/**
 * The reconciler takes the brand's lease (ADR 0015) before it acts on anything of a brand, with no
 * wait: while a structural operation holds it, the brand's orphans and failed rollbacks are spared
 * this pass and taken by the next one.
 */
describe("the upstream reconciler and the per-brand lease", () => {
  let world: UpstreamReconcileWorld;
  const ids: Record<string, string> = {};
  const FOREIGN_HOLDER = "00000000-0000-4000-8000-0000000000aa";

  const holdLease = (brandId: string) =>
    world.runtime.database.db
      .insert(brandLeases)
      // The lease runs on the system clock (ADR 0015): held for ten real minutes, released by hand.
      .values({ brandId, holder: FOREIGN_HOLDER, expiresAt: new Date(Date.now() + 10 * 60_000) });
  const leaseHolders = async () =>
    (await world.runtime.database.db.select().from(brandLeases)).map((row) => row.holder);

  beforeAll(async () => {
    world = await startUpstreamReconcileWorld();
    // Aurora: a tracked market project, a leftover project beside it, a duplicate sub-workspace.
    const aurora = await world.brand("Aurora", { totals: { projects: 3, prompts: 200 } });
    ids.aurora = aurora.brandId;
    ids.auroraWorkspace = aurora.workspaceId;
    ids.tracked = await world.project(aurora.workspaceId, "Aurora US en");
    await world.market(aurora.brandId, aurora.workspaceId, ids.tracked);
    ids.leftover = await world.project(aurora.workspaceId, "Aurora FR fr");
    ids.duplicate = await world.subWorkspace("Aurora", { projects: 2, prompts: 100 });
    ids.duplicateProject = await world.project(ids.duplicate, "Aurora DE de");
    // Borealis: a failed rollback (a kept `creating` reservation with its project).
    const borealis = await world.brand("Borealis", { totals: { projects: 2, prompts: 100 } });
    ids.borealis = borealis.brandId;
    ids.borealisWorkspace = borealis.workspaceId;
    ids.kept = await world.project(borealis.workspaceId, "Borealis NL nl");
    await world.market(borealis.brandId, borealis.workspaceId, ids.kept, "creating");
    // First sight: the grace starts.
    const first = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(first.orphans).toEqual({ subWorkspaces: 1, projects: 1 });
    world.clock.advance(GRACE_MS);
  });
  afterAll(() => world.close());

  it("spares a busy brand's orphans and failed rollbacks: nothing changes upstream, the holder keeps its lease", async () => {
    await holdLease(ids.aurora!);
    await holdLease(ids.borealis!);
    await world.sim.clearCalls();
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(await world.mutatingCalls()).toEqual([]);
    expect(await world.ledger()).toEqual([]);
    expect(report.reclaimed).toEqual({ subWorkspaces: 0, projects: 0 });
    expect(report.rollbacksRetried).toBe(0);
    expect(report.failed).toBe(0);
    expect(report.busy).toBe(3);
    expect(await world.projectIds(ids.duplicate!)).toEqual([ids.duplicateProject]);
    expect((await world.projectIds(ids.auroraWorkspace!)).sort()).toEqual([ids.tracked, ids.leftover].sort());
    expect(await world.projectIds(ids.borealisWorkspace!)).toEqual([ids.kept]);
    expect(await leaseHolders()).toEqual([FOREIGN_HOLDER, FOREIGN_HOLDER]);
  });

  it("once the lease is released, the next pass reclaims them all and lets the lease go", async () => {
    await world.runtime.database.db.delete(brandLeases).where(eq(brandLeases.holder, FOREIGN_HOLDER));
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(report.busy).toBe(0);
    expect(report.reclaimed).toEqual({ subWorkspaces: 1, projects: 1 });
    expect(report.rollbacksRetried).toBe(1);
    expect(report.failed).toBe(0);
    expect(await world.projectIds(ids.duplicate!)).toEqual([]);
    expect(await world.projectIds(ids.auroraWorkspace!)).toEqual([ids.tracked]);
    expect(await world.projectIds(ids.borealisWorkspace!)).toEqual([]);
    expect(await leaseHolders()).toEqual([]);
  });

  it("looks again under the lease: an orphan the holder it waited behind has tracked is spared", async () => {
    await world.runtime.gateway.users.transferResources(TOKEN, ids.auroraWorkspace!, { projects: 3 });
    const late = await world.project(ids.auroraWorkspace!, "Aurora IT it");
    await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    world.clock.advance(GRACE_MS);
    // The operation that held the brand finishes just as the reconciler takes the lease: its
    // market row now tracks the project the observation saw untracked.
    const lease = world.runtime.services.brandLease;
    const reconciler = new UpstreamReconciler({
      db: world.runtime.database.db,
      clock: world.clock,
      logger: world.runtime.logger,
      events: world.runtime.events,
      gateway: world.runtime.gateway,
      upstream: gatewayAllocationUpstream(world.runtime.gateway),
      allocation: world.runtime.services.allocation,
      brandLease: {
        async withBrand(brandId, work, options) {
          await world.market(brandId, ids.auroraWorkspace!, late);
          return lease.withBrand(brandId, work, options);
        },
      },
    });
    await world.sim.clearCalls();
    const report = await reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(await world.mutatingCalls()).toEqual([]);
    expect(await world.projectIds(ids.auroraWorkspace!)).toContain(late);
    expect(report.orphans.projects).toBe(1);
    expect(report.spared).toBe(1);
    expect(report.reclaimed).toEqual({ subWorkspaces: 0, projects: 0 });
  });
});

/**
 * A reservation abandoned before it recorded a project (a process that died between making the
 * project and writing its id down) claims every untracked project of its workspace, so the project
 * it made would never become an orphan. Once older than the grace, with no live job of its brand,
 * the reconciler drops the row; the project is then an orphan and is reclaimed a grace later.
 */
describe("the upstream reconciler and an abandoned market reservation", () => {
  let world: UpstreamReconcileWorld;

  beforeAll(async () => {
    world = await startUpstreamReconcileWorld();
  });
  afterAll(() => world.close());

  it("drops the reservation after the grace, then reclaims the project its create made", async () => {
    const cobalt = await world.brand("Cobalt", { totals: { projects: 2, prompts: 100 } });
    const made = await world.project(cobalt.workspaceId, "Cobalt FR fr");
    await world.market(cobalt.brandId, cobalt.workspaceId, null, "creating");
    const reservations = () =>
      world.runtime.database.db.select().from(markets).where(eq(markets.brandId, cobalt.brandId));
    const pass = () => world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });

    // Young: the reservation may be a create in flight; it claims the project.
    const young = await pass();
    expect(young).toMatchObject({ orphans: { subWorkspaces: 0, projects: 0 }, reservationsDropped: 0 });
    expect(await reservations()).toHaveLength(1);

    // Older than the grace, no live job of the brand: dropped; the project is now unclaimed.
    world.clock.advance(GRACE_MS);
    expect((await pass()).reservationsDropped).toBe(1);
    expect(await reservations()).toEqual([]);
    const seen = await pass();
    expect(seen).toMatchObject({ orphans: { projects: 1 }, waiting: 1 });
    expect(await world.projectIds(cobalt.workspaceId)).toContain(made);

    world.clock.advance(GRACE_MS);
    expect((await pass()).reclaimed.projects).toBe(1);
    expect(await world.projectIds(cobalt.workspaceId)).not.toContain(made);
    expect((await world.ledger()).filter((row) => row.outcome === "projectDeleted")).toHaveLength(1);
  });
});
