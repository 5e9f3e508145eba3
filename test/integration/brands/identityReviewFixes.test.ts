import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { gatewayAllocationUpstream } from "../../../src/allocation/gatewayAllocationUpstream.ts";
import { mergedIdentity } from "../../../src/brandLifecycle/brandIdentityService.ts";
import { updateBrandIdentity } from "../../../src/db/brands/updateBrandIdentity.ts";
import { brands, markets } from "../../../src/db/schema.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import type { JobWorker } from "../../../src/jobs/worker.ts";
import { applyMarketIdentity } from "../../../src/markets/marketIdentity.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../../src/operations/upstreamReconciler.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { workerOf } from "../../support/testApp.ts";

/**
 * The review findings on issue 37's brand identity (docs/decisions/0041, "Review fixes"), each
 * against the simulator over real HTTP with the real job runner.
 */

let world: MarketWorld;
let worker: JobWorker;

beforeAll(async () => {
  world = await startMarketWorld();
  worker = workerOf(world.t, createLogger({ level: "silent" }));
  const answer = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

const brandUrl = (brandId = world.brandId) => `/v2/orgs/${world.orgId}/brands/${brandId}`;

async function brandRow(brandId = world.brandId) {
  const [row] = await world.t.db.db.select().from(brands).where(eq(brands.id, brandId));
  return row!;
}

/** One pass of the upstream reconciler over the org, its drift repair included. */
function reconcile() {
  const gateway = world.t.gateway!;
  const reconciler = new UpstreamReconciler({
    db: world.t.db.db,
    clock: systemClock,
    logger: createLogger({ level: "silent" }),
    events: new EventBus(),
    gateway,
    upstream: gatewayAllocationUpstream(gateway),
    allocation: world.t.services.allocation,
    brandLease: world.t.services.brandLease,
    identity: { gateway, meteredWrites: world.t.services.allocation.meteredWrites },
  });
  return reconciler.reconcileOrg(
    { id: world.orgId, parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID },
    world.token,
    {
      graceMs: 3_600_000,
    },
  );
}

const usProject = () => world.projects().find((p) => p.locationId === 2840)!;

describe("benchmark updates whose names form a cycle", () => {
  it("a cycle that the first pending update is not part of still converges", async () => {
    const ref = () => ({ bearer: world.token, ws: usProject().workspaceId, pid: usProject().id });
    const base = await brandRow();
    const before = {
      ...base,
      name: "Acme",
      aliases: [],
      competitors: [
        { name: "Pear", domain: "b.com", aliases: ["Rook"] },
        { name: "Quill", domain: "c.com", aliases: [] },
      ],
      urls: [],
    };
    await applyMarketIdentity(world.t.gateway!, ref(), before);
    // The own brand takes "Pear", b.com takes c.com's "Quill", c.com takes b.com's alias "Rook".
    const after = {
      ...before,
      name: "Pear",
      competitors: [
        { name: "Quill", domain: "b.com", aliases: [] },
        { name: "Rook", domain: "c.com", aliases: [] },
      ],
    };
    const outcome = await applyMarketIdentity(world.t.gateway!, ref(), after);
    expect(outcome.drift.benchmarks).toBe(true);
    const benchmarks = [...usProject().benchmarks.values()];
    expect(benchmarks.map((b) => [b.mainBrand, b.brandName, b.brandAliases, b.domain])).toEqual([
      [true, "Pear", [], base.domain],
      [false, "Quill", [], "b.com"],
      [false, "Rook", [], "c.com"],
    ]);
    // The project goes back to the brand's own identity for the next cases.
    await applyMarketIdentity(world.t.gateway!, ref(), base);
  }, 20_000);
});

describe("DELETE after the delete job failed", () => {
  it("runs the delete again (the failed job re-armed) and the brand ends deleted", async () => {
    const brandId = await world.createBrand({ name: "Retried", domain: "retried.example" });
    const market = await world.call("POST", world.marketsUrl(brandId), { market: "FR", languageCode: "fr" });
    expect(market.status, JSON.stringify(market.body)).toBe(201);
    // The upstream refuses the project's delete: the job fails for good.
    await world.sim.control("/faults", {
      match: { method: "DELETE", pathPattern: "/projects/" },
      action: { status: 403, body: { message: "forbidden" } },
    });
    const first = await world.call("DELETE", brandUrl(brandId));
    expect(first.status).toBe(202);
    await worker.drain();
    const failed = await world.call("GET", first.body.job.location);
    expect(failed.body.job.status).toBe("FAILED");
    expect((await brandRow(brandId)).status).not.toBe("deleted");

    await world.sim.control("/faults", undefined, "DELETE");
    const again = await world.call("DELETE", brandUrl(brandId));
    expect(again.status).toBe(202);
    expect(again.body.job).toMatchObject({ type: "deleteBrand", status: "IN_PROGRESS" });
    await worker.drain();
    const polled = await world.call("GET", again.body.job.location);
    expect(polled.body.job).toMatchObject({ status: "COMPLETED", jobType: "deleteBrand" });
    expect((await brandRow(brandId)).status).toBe("deleted");
  });
});

describe("a PATCH retried after its identity committed without its job", () => {
  it("starts the propagation the first attempt never started, and the market follows", async () => {
    const patch = { aliases: ["Acme Retried"] };
    const brand = await brandRow();
    // What a crash (or a failed job submit) right after the identity's commit leaves behind.
    const committed = await updateBrandIdentity(world.t.db.db, {
      orgId: world.orgId,
      brandId: world.brandId,
      expectedVersion: brand.identityVersion,
      identity: mergedIdentity(brand, patch),
      now: undefined,
    });
    expect(committed).toMatchObject({ identityVersion: brand.identityVersion + 1 });
    const retried = await world.call("PATCH", brandUrl(), patch);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.job).toMatchObject({ type: "propagateBrandIdentity" });
    await worker.drain();
    expect((await world.call("GET", retried.body.job.location)).body.status).toBe("COMPLETED");
    const [market] = await world.t.db.db.select().from(markets).where(eq(markets.brandId, world.brandId));
    expect(market!.identityVersion).toBe(brand.identityVersion + 1);
    expect(usProject().brandNames).toEqual([brand.name, "Acme Retried"]);
    // Nothing behind any more: the same PATCH again starts nothing.
    const again = await world.call("PATCH", brandUrl(), patch);
    expect(again.body.job).toBeNull();
  });
});

describe("twins from before the unique name (name_key NULL, docs/decisions/0022 item 7)", () => {
  it("a PATCH of one that keeps its name succeeds; renaming it to a free name sets its key", async () => {
    const first = await world.createBrand({ name: "Twin One", domain: "twin.example" });
    const second = await world.createBrand({ name: "Twin Two", domain: "twin.example" });
    // As migration 0012 left them: the oldest keeps the key, the other NULL.
    await world.setBrand(first, { name: "Twin", nameKey: "twin" });
    await world.setBrand(second, { name: "Twin", nameKey: null });
    const aliases = await world.call("PATCH", brandUrl(second), { aliases: ["Twin Co"] });
    expect(aliases.status, JSON.stringify(aliases.body)).toBe(200);
    const recased = await world.call("PATCH", brandUrl(second), { name: "TWIN" });
    expect(recased.status, JSON.stringify(recased.body)).toBe(200);
    expect((await brandRow(second)).nameKey).toBeNull();
    expect((await world.call("PATCH", brandUrl(first), { aliases: ["Twin Inc"] })).status).toBe(200);
    expect((await brandRow(first)).nameKey).toBe("twin");
    const renamed = await world.call("PATCH", brandUrl(second), { name: "Twin Apart" });
    expect(renamed.status).toBe(200);
    expect((await brandRow(second)).nameKey).toBe("twin apart");
    const clash = await world.call("PATCH", brandUrl(first), { name: "twin apart" });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("brandExists");
  });
});

describe("drift repair of a market behind its brand's identity version", () => {
  it("re-tags the market's prompts like the propagation would", async () => {
    const written = await world.call("POST", world.promptsUrl(), {
      items: [{ text: "Are Roadrunners fast enough?", geoTargetId: 2840, languageCode: "en" }],
    });
    expect(written.status).toBe(201);
    const id = written.body.items[0].id as string;
    const typeOf = () => {
      const project = usProject();
      const tags = project.prompts.get(id)!.tagIds.map((tagId) => project.tags.get(tagId)!);
      return tags.find((tag) => project.tags.get(tag.parentId ?? "")?.name === "type")?.name;
    };
    expect(typeOf()).toBe("non-branded");
    // A new identity committed whose propagation never ran (its job failed for good, say).
    const brand = await brandRow();
    const identity = mergedIdentity(brand, { aliases: [...brand.aliases, "Roadrunner"] });
    await updateBrandIdentity(world.t.db.db, {
      orgId: world.orgId,
      brandId: world.brandId,
      expectedVersion: brand.identityVersion,
      identity,
      now: undefined,
    });
    const report = await reconcile();
    expect(report.identityRepaired).toBe(1);
    const [market] = await world.t.db.db.select().from(markets).where(eq(markets.brandId, world.brandId));
    expect(market!.identityVersion).toBe(brand.identityVersion + 1);
    expect(typeOf()).toBe("branded");
    expect(usProject().dirty).toBe(false);
  });
});

describe("drift repair and a user's unpublished drafts", () => {
  it("a market in step with unpublished changes made elsewhere is not published by a drift pass", async () => {
    await worker.drain();
    expect(usProject().dirty).toBe(false);
    // A draft someone made in Semrush's UI (or a prompt write that left its change unpublished).
    usProject().dirty = true;
    await world.sim.clearCalls();
    const report = await reconcile();
    expect(report.identityRepaired).toBe(0);
    expect((await world.sim.calls()).filter((call) => call.path.endsWith("/publish"))).toEqual([]);
    expect(usProject().dirty).toBe(true);
    usProject().dirty = false;
  });
});
