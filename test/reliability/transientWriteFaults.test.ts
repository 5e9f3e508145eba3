import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brands, jobs, markets } from "../../src/db/schema.ts";
import { type LifecycleWorld, startLifecycleWorld } from "../support/lifecycleWorld.ts";
import type { SimFaultRule } from "../support/simControls.ts";

/**
 * One transient upstream failure of a write failed asynchronous provisioning
 * for good (job FAILED `retryable: false`, brand ready without its market, a project stranded).
 * Every write kind of a brand's provisioning × every transient failure — a 500, a 504, a 504 in
 * front of a committed write, a dropped connection — one-shot: each brand ends ready WITH its
 * market, its job COMPLETED, and nothing is stranded upstream (every project under the parent is
 * tracked by a market row, one sub-workspace per brand).
 */
process.env.SERENITY_DYNAMIC_ALLOCATION = "true";

const WRITES: Record<string, { method: string; pathPattern: string }> = {
  subWorkspaceCreate: { method: "POST", pathPattern: "/workspaces/[^/]+/child$" },
  projectCreate: { method: "POST", pathPattern: "/workspaces/[^/]+/projects$" },
  transfer: { method: "POST", pathPattern: "/resources/transfer$" },
  publish: { method: "POST", pathPattern: "/publish$" },
  modelAssignment: { method: "POST", pathPattern: "/ai_models$" },
};
const FAILURES: Record<string, SimFaultRule["action"]> = {
  status500: { status: 500, body: { message: "internal error" } },
  status504: { status: 504, body: "<html>504 Gateway Time-out</html>", contentType: "text/html" },
  afterCommit504: { afterCommit504: true },
  droppedConnection: { dropConnection: true },
};

let w: LifecycleWorld;
beforeAll(async () => {
  // 20 brands and more: a pool of their own, so exhaustion never hides a fault's effect.
  w = await startLifecycleWorld({ latencyMs: 0, pool: { projects: 60, prompts: 6000 } });
});
afterAll(() => w?.close());

const cases = Object.entries(WRITES).flatMap(([write, match]) =>
  Object.entries(FAILURES).map(([failure, action]) => ({ write, failure, match, action })),
);

describe("one transient failure of each upstream write during asynchronous provisioning", () => {
  it.each(cases)(
    "$write × $failure: the brand ends ready with its market",
    async ({ write, failure, match, action }) => {
      const name = `Faulty ${write} ${failure}`;
      await w.sim.control("/faults", undefined, "DELETE");
      await w.sim.control("/faults", { match, action, times: 1 });
      const created = await w.http("POST", `/v2/orgs/${w.orgId}/brands`, {
        name,
        domain: "faulty.example",
        semrushMarket: { market: "US", languageCode: "en" },
        async: true,
      });
      expect(created.status).toBe(202);
      const brandId = created.body.id as string;
      await w.settled();

      // The fault fired (one-shot rules are consumed when they match).
      expect(w.sim.simulator.faults.size).toBe(0);
      const [brand] = await w.t.db.db.select().from(brands).where(eq(brands.id, brandId));
      expect([brand!.status, brand!.provisioningStatus]).toEqual(["active", "ready"]);
      const rows = await w.t.db.db.select().from(markets).where(eq(markets.brandId, brandId));
      expect(rows.map((row) => [row.geoTargetId, row.status, row.workspaceId])).toEqual([
        [2840, "ready", brand!.subWorkspaceId],
      ]);
      const failed = await w.t.db.db.select().from(jobs).where(eq(jobs.brandId, brandId));
      expect(failed.filter((job) => job.status === "FAILED").map((job) => job.error)).toEqual([]);

      const upstream = await w.upstream();
      expect(upstream.children.filter((child) => child.title === name)).toHaveLength(1);
      expect(upstream.untrackedProjects).toEqual([]);
    },
  );

  it.each(Object.entries(FAILURES))(
    "prompt create × %s: the bulk create answers 201 and the prompt exists once",
    async (failure, action) => {
      const name = `Prompted ${failure}`;
      await w.sim.control("/faults", undefined, "DELETE");
      const created = await w.http("POST", `/v2/orgs/${w.orgId}/brands`, {
        name,
        domain: "prompted.example",
        semrushMarket: { market: "US", languageCode: "en" },
      });
      expect(created.status).toBe(201);
      const base = `/v2/orgs/${w.orgId}/brands/${created.body.id}/serenity/prompts`;
      await w.sim.control("/faults", {
        match: { method: "POST", pathPattern: "/v3/.*/aio/prompts$" },
        action,
        times: 1,
      });
      const text = `Which running shoe lasts longest (${failure})?`;
      const answer = await w.http("POST", base, { items: [{ text, geoTargetId: 2840, languageCode: "en" }] });
      // After a 504 in front of a committed create, the repeat finds the text there already and the
      // item reads as existing (207): the prompt is made once either way, never twice, never lost.
      expect(failure === "afterCommit504" ? [201, 207] : [201]).toContain(answer.status);
      expect(w.sim.simulator.faults.size).toBe(0);
      const listed = await w.http("GET", `${base}?geoTargetId=2840&languageCode=en&includeDrafts=true`);
      expect(listed.body.items.filter((item: { text: string }) => item.text === text)).toHaveLength(1);
    },
  );

  it("a project create that keeps failing: the job ends FAILED and the ready brand says its market is missing", async () => {
    const name = "Persistently faulty project create";
    await w.sim.control("/faults", undefined, "DELETE");
    await w.sim.control("/faults", {
      match: WRITES.projectCreate!,
      action: FAILURES.status500!,
      times: 1_000,
    });
    const created = await w.http("POST", `/v2/orgs/${w.orgId}/brands`, {
      name,
      domain: "persistent.example",
      semrushMarket: { market: "US", languageCode: "en" },
      async: true,
    });
    expect(created.status).toBe(202);
    const brandId = created.body.id as string;
    await w.settled();
    await w.sim.control("/faults", undefined, "DELETE");

    const chained = await w.t.db.db.select().from(jobs).where(eq(jobs.brandId, brandId));
    expect(chained.some((job) => job.status === "FAILED")).toBe(true);
    const answer = await w.http("GET", `/v2/orgs/${w.orgId}/brands/${brandId}`);
    expect(answer.body.provisioning).toMatchObject({
      status: "ready",
      error: "Workspace is ready, but a requested market could not be created",
    });
    expect(await w.t.db.db.select().from(markets).where(eq(markets.brandId, brandId))).toEqual([]);
    expect((await w.upstream()).untrackedProjects).toEqual([]);
  });

  it("after all of them: the pool is conserved and nothing is stranded", async () => {
    const upstream = await w.upstream();
    expect(upstream.untrackedProjects).toEqual([]);
    const sum = (dim: "projects" | "prompts") =>
      upstream.parentTotals[dim] + upstream.children.reduce((total, child) => total + child.totals[dim], 0);
    expect({ projects: sum("projects"), prompts: sum("prompts") }).toEqual({ projects: 60, prompts: 6000 });
    // And the harness's invariants, as the upstream reconciler observes them (it does not act).
    await w.expectInvariants();
  });
});
