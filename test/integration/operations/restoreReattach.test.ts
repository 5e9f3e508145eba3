import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Principal } from "../../../src/auth/principal.ts";
import { brands, markets } from "../../../src/db/schema.ts";
import { listQuarantinedOrphans } from "../../../src/db/upstreamReconcile/listQuarantinedOrphans.ts";
import { runAudit } from "../../../src/operations/audit.ts";
import { deleteQuarantined } from "../../../src/operations/deleteQuarantined.ts";
import { promptCounterOf, upstreamReconcilerDepsOf } from "../../../src/runtime/upstreamReconcilerOf.ts";
import { catalogueLanguageId } from "../../support/simulator.ts";
import {
  startUpstreamReconcileWorld,
  TOKEN,
  type UpstreamReconcileWorld,
} from "../../support/upstreamReconcileWorld.ts";

const GRACE_MS = 10 * 60_000;

/**
 * A restore from an older backup deletes nothing upstream (ADR 0016 addendum). Markets are made by
 * the real create path and given prompts by the real bulk write; the market rows are snapshotted,
 * more markets are made, then the snapshot is restored as a backup restore would (every row since
 * is gone, upstream keeps the projects and their prompts). A grace period later the reconciler has
 * given each lost market its row back, with its project and its prompts, and deleted nothing.
 */
describe("restoring an older backup", () => {
  let world: UpstreamReconcileWorld;
  let principal: Principal;
  let brandId: string;
  let workspaceId: string;

  beforeAll(async () => {
    world = await startUpstreamReconcileWorld();
    principal = { sub: "restore-user", orgIds: [world.orgId], isAdmin: false, bearer: TOKEN };
    ({ brandId, workspaceId } = await world.brand("Restora", { totals: { projects: 1, prompts: 100 } }));
    await world.db.db.update(brands).set({ domain: "restora.example" }).where(eq(brands.id, brandId));
  });
  afterAll(() => world.close());

  const createMarket = async (market: string, languageCode: string) => {
    const outcome = await world.runtime.services.markets.create(
      principal,
      world.orgId,
      brandId,
      { market, languageCode },
      { requestId: `restore-${market}` },
    );
    if (!("done" in outcome)) throw new Error("expected a synchronous create");
    return outcome.done;
  };
  const addPrompts = async (geoTargetId: number, languageCode: string, texts: string[]) => {
    const outcomes = await world.runtime.services.prompts.bulkCreate(
      principal,
      world.orgId,
      brandId,
      texts.map((text) => ({ text, geoTargetId, languageCode })),
    );
    expect(outcomes.every((outcome) => outcome.outcome === "created")).toBe(true);
  };
  const marketRows = () =>
    world.db.db
      .select({ geoTargetId: markets.geoTargetId, projectId: markets.projectId, status: markets.status })
      .from(markets)
      .where(eq(markets.brandId, brandId));
  const promptCount = (bearer: string, ws: string, projectId: string) =>
    promptCounterOf(world.runtime)(bearer, ws, projectId);

  it("the lost markets come back with their projects and prompts; nothing is deleted upstream", async () => {
    await createMarket("US", "en");
    await addPrompts(2840, "en", ["best moisturiser for dry skin?"]);
    // The backup.
    await world.db.db.execute(sql`create table backup_markets as select * from markets`);

    const fr = await createMarket("FR", "fr");
    await addPrompts(2250, "fr", ["meilleure crème hydratante ?", "crème pour peau sèche ?"]);
    const de = await createMarket("DE", "de");
    const before = new Map((await marketRows()).map((row) => [row.geoTargetId, row.projectId]));
    expect(before.size).toBe(3);
    const frPrompts = await promptCount(TOKEN, workspaceId, fr.projectId!);
    expect(frPrompts).toBe(2);

    // The restore: the markets table as the backup had it (its model and tag caches go with it).
    await world.db.db.execute(sql`delete from markets where brand_id = ${brandId}`);
    await world.db.db.execute(sql`insert into markets select * from backup_markets`);
    expect(await marketRows()).toHaveLength(1);

    await world.sim.clearCalls();
    const first = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(first.orphans.projects).toBe(2);
    expect(first.waiting).toBe(2);
    world.clock.advance(GRACE_MS);
    const second = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(second.reattached).toBe(2);
    expect(second.reclaimed).toEqual({ subWorkspaces: 0, projects: 0 });
    expect(second.quarantined).toBe(0);

    // Every market is back on the project it had, ready; the prompts are where they were.
    const after = new Map((await marketRows()).map((row) => [row.geoTargetId, row.projectId]));
    expect(after).toEqual(before);
    expect((await marketRows()).every((row) => row.status === "ready")).toBe(true);
    expect(await promptCount(TOKEN, workspaceId, fr.projectId!)).toBe(frPrompts);
    expect(await world.projectIds(workspaceId)).toEqual(expect.arrayContaining([fr.projectId, de.projectId]));
    expect((await world.mutatingCalls()).filter((call) => call.startsWith("DELETE"))).toEqual([]);
    // The market answers through the API's service like any other (its project is read upstream).
    const listed = await world.runtime.services.markets.list(principal, world.orgId, brandId, {
      requestId: "restore-list",
    });
    expect(listed.map((market) => market.geoTargetId).sort()).toEqual([2250, 2276, 2840]);

    // And the next pass has nothing left to do.
    const third = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(third.orphans).toEqual({ subWorkspaces: 0, projects: 0 });
  });

  it("a project holding prompts that cannot be re-attached is quarantined: kept, reported, counted", async () => {
    // A brand whose US market is tracked, with room for two more projects.
    const other = await world.brand("Quarta", { totals: { projects: 3, prompts: 100 } });
    const ws = other.workspaceId;
    const project = (name: string, countryCode: string, locationId: number) =>
      world.runtime.gateway.projects.createProject(TOKEN, ws, {
        name,
        brandNameDisplay: "Quarta",
        brandNames: ["Quarta"],
        domain: "quarta.example",
        countryCode,
        locationId,
        locationName: countryCode,
        languageId: catalogueLanguageId("en"),
      });
    const tracked = await project("Quarta US en", "US", 2840);
    await world.db.db.insert(markets).values({
      brandId: other.brandId,
      geoTargetId: 2840,
      languageCode: "en",
      country: "US",
      workspaceId: ws,
      status: "ready",
      projectId: tracked.id,
      createdAt: world.clock.now(),
      updatedAt: world.clock.now(),
    });
    // A second project for the taken US slice (a duplicate a racing create left), written to.
    const duplicate = await project("Quarta US en", "US", 2840);
    await world.runtime.gateway.projects.createPrompts(TOKEN, ws, duplicate.id, {
      texts: ["a prompt someone wrote into the duplicate"],
      createdBy: "someone",
    });
    // And an empty draft of a create that failed: that one goes.
    const draft = await project("Quarta ES es", "ES", 2724);
    const workspaceId = ws;

    await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    world.clock.advance(GRACE_MS);
    await world.sim.clearCalls();
    const report = await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(report.quarantined).toBe(1);
    expect(report.reclaimed.projects).toBe(1);
    const remaining = await world.projectIds(workspaceId);
    expect(remaining).toContain(duplicate.id);
    expect(remaining).not.toContain(draft.id);
    expect(await world.mutatingCalls()).toEqual(
      expect.not.arrayContaining([expect.stringContaining(duplicate.id)]),
    );
    expect(await listQuarantinedOrphans(world.db.db, { orgId: world.orgId })).toMatchObject([
      { kind: "project", upstreamId: duplicate.id },
    ]);
    const metrics = await world.runtime.metrics.registry.metrics();
    expect(metrics).toMatch(new RegExp(`serenity_upstream_orphans_quarantined\\{org="${world.orgId}"\\} 1`));

    // serenity audit reports it as quarantined.
    const audit = await runAudit(
      {
        db: world.db.db,
        logger: world.runtime.logger,
        poolView: world.runtime.services.poolView,
        orphans: {
          observe: (org, bearer) => world.reconciler.observe(org, bearer),
          prompts: promptCount,
        },
      },
      { bearer: TOKEN, orgIds: [world.orgId], now: () => world.clock.now() },
    );
    expect(audit.orgs[0]!.orphans).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: duplicate.id, state: "quarantined" })]),
    );

    // Later passes keep it.
    world.clock.advance(GRACE_MS);
    await world.reconciler.reconcileOrg(world.org, TOKEN, { graceMs: GRACE_MS });
    expect(await world.projectIds(workspaceId)).toContain(duplicate.id);

    // Only an operator's command naming it deletes it; an id not in quarantine is refused.
    const deps = upstreamReconcilerDepsOf(world.runtime);
    await expect(deleteQuarantined(deps, { bearer: TOKEN, upstreamId: tracked.id })).rejects.toMatchObject({
      code: "notFound",
    });
    expect(await world.projectIds(workspaceId)).toContain(tracked.id);
    const deleted = await deleteQuarantined(deps, { bearer: TOKEN, upstreamId: duplicate.id });
    expect(deleted).toMatchObject({ kind: "project", upstreamId: duplicate.id, orgId: world.orgId });
    expect(await world.projectIds(workspaceId)).not.toContain(duplicate.id);
    expect(await listQuarantinedOrphans(world.db.db, { orgId: world.orgId })).toEqual([]);
  });
});
