import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { gatewayAllocationUpstream } from "../../../src/allocation/gatewayAllocationUpstream.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import { createBrandLease } from "../../../src/locks/brandLease.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { UpstreamReconciler } from "../../../src/operations/upstreamReconciler.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { workerOf } from "../../support/testApp.ts";

/**
 * The upstream reconciler's drift repair (issue 37, item 4): a market whose project someone edited
 * by hand in Semrush (brand names, benchmarks, CI competitors, brand URLs) is re-synced to its
 * brand's identity, counted and logged; a brand whose lease another process holds is left alone.
 */

let world: MarketWorld;
let reconciler: UpstreamReconciler;

const identity = {
  aliases: ["Acme Co"],
  competitors: [{ name: "Globex", domain: "globex.example" }],
  urls: [{ url: "https://acme.example/", kind: "owned" }],
};

beforeAll(async () => {
  world = await startMarketWorld();
  const created = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
  expect(created.status).toBe(201);
  const patched = await world.call("PATCH", `/v2/orgs/${world.orgId}/brands/${world.brandId}`, identity);
  expect(patched.status).toBe(200);
  await workerOf(world.t, createLogger({ level: "silent" })).drain();
  reconciler = reconcilerWith(world.t.services.brandLease);
});

afterAll(async () => {
  await world.close();
});

/** A reconciler as another process would build it: its own brand lease on the same database. */
function reconcilerWith(
  brandLease = createBrandLease({
    db: world.t.db.db,
    clock: systemClock,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
  }),
) {
  const gateway = world.t.gateway!;
  return new UpstreamReconciler({
    db: world.t.db.db,
    clock: systemClock,
    logger: createLogger({ level: "silent" }),
    events: new EventBus(),
    gateway,
    upstream: gatewayAllocationUpstream(gateway),
    allocation: world.t.services.allocation,
    brandLease,
    identity: { gateway, meteredWrites: world.t.services.allocation.meteredWrites },
  });
}

const org = () => ({ id: world.orgId, parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID });
const project = () => world.projects().find((p) => p.locationId === 2840)!;

function handEdit(): void {
  const p = project();
  p.brandNames = ["Acme"];
  for (const benchmark of p.benchmarks.values()) {
    if (benchmark.mainBrand) benchmark.brandUrls.clear();
    else p.benchmarks.delete(benchmark.id);
  }
  p.ciCompetitors = [{ id: "hand", domain: "initech.example", color: "" }];
}

function identityUpstream() {
  const p = project();
  const benchmarks = [...p.benchmarks.values()];
  return {
    names: p.brandNames,
    benchmarks: benchmarks.map((b) => [b.mainBrand, b.brandName, b.domain]),
    ci: p.ciCompetitors.map((c) => c.domain),
    urls: [...benchmarks.find((b) => b.mainBrand)!.brandUrls.values()].map((u) => [u.url, u.type]),
  };
}

describe("drift repair", () => {
  it("a market in step costs reads only and counts nothing", async () => {
    await world.sim.clearCalls();
    const report = await reconciler.reconcileOrg(org(), world.token, { graceMs: 3_600_000 });
    expect(report.identityRepaired).toBe(0);
    const writes = (await world.sim.calls()).filter(
      (call) => call.method !== "GET" && !call.path.includes("/by_tags"),
    );
    expect(writes).toEqual([]);
  });

  it("re-syncs a market someone edited by hand, counts it, publishes once", async () => {
    const before = identityUpstream();
    handEdit();
    expect(identityUpstream()).not.toEqual(before);
    await world.sim.clearCalls();
    const report = await reconciler.reconcileOrg(org(), world.token, { graceMs: 3_600_000 });
    expect(report.identityRepaired).toBe(1);
    expect(identityUpstream()).toEqual(before);
    const publishes = (await world.sim.calls()).filter((call) => call.path.endsWith("/publish"));
    expect(publishes).toHaveLength(1);
  });

  it("never touches a brand whose lease another process holds", async () => {
    handEdit();
    const edited = identityUpstream();
    const other = reconcilerWith();
    const report = await world.t.services.brandLease.withBrand(world.brandId, () =>
      other.reconcileOrg(org(), world.token, { graceMs: 3_600_000 }),
    );
    expect(report).toMatchObject({ identityRepaired: 0 });
    expect(report.busy).toBeGreaterThan(0);
    expect(identityUpstream()).toEqual(edited);
    // Once the holder is gone, the next pass repairs it.
    expect((await other.reconcileOrg(org(), world.token, { graceMs: 3_600_000 })).identityRepaired).toBe(1);
  });
});
