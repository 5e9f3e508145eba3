import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { allocationLedger } from "../../src/db/schema.ts";
import { type LifecycleWorld, startLifecycleWorld } from "../support/lifecycleWorld.ts";

/**
 * A transfer whose answer was lost (a 504 in front of a committed write) was
 * recorded `failed` although the sub-workspace held the units. Transfers are absolute, so a read
 * settles it: `applied` when the totals are the targets, `notApplied` when they are not — never
 * `failed` for a transfer that committed.
 */
process.env.SERENITY_DYNAMIC_ALLOCATION = "true";

let w: LifecycleWorld;
beforeAll(async () => {
  w = await startLifecycleWorld({ latencyMs: 0, pool: { projects: 20, prompts: 2000 } });
});
afterAll(() => w?.close());

async function ledgerOf(brandId: string) {
  return w.t.db.db.select().from(allocationLedger).where(eq(allocationLedger.brandId, brandId));
}

describe("a transfer whose answer is lost", () => {
  it("committed (afterCommit504 on every try): the ledger says applied and the market is made", async () => {
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/resources/transfer$" },
      action: { afterCommit504: true },
      times: 3,
    });
    const created = await w.http("POST", `/v2/orgs/${w.orgId}/brands`, {
      name: "Committed transfer",
      domain: "committed.example",
      semrushMarket: { market: "US", languageCode: "en" },
    });
    expect(created.status).toBe(201);
    expect(w.sim.simulator.faults.size).toBe(0);
    const rows = await ledgerOf(created.body.id);
    expect(rows.map((row) => [row.reason, row.outcome])).toEqual([["topUp", "applied"]]);
    expect(await w.sim.totals(created.body.subWorkspaceId)).toMatchObject(rows[0]!.after!);
  });

  it("not committed (a 504 on every try): the ledger says notApplied, not failed, and nothing moved", async () => {
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/resources/transfer$" },
      action: { status: 504, body: "<html>504</html>", contentType: "text/html" },
      times: 3,
    });
    const created = await w.http("POST", `/v2/orgs/${w.orgId}/brands`, {
      name: "Lost transfer",
      domain: "lost.example",
      semrushMarket: { market: "US", languageCode: "en" },
    });
    expect(created.status).toBe(502);
    expect(w.sim.simulator.faults.size).toBe(0);
    const [brand] = (await w.http("GET", `/v2/orgs/${w.orgId}/brands`)).body.items.filter(
      (item: { name: string }) => item.name === "Lost transfer",
    );
    const rows = await ledgerOf(brand.id);
    expect(rows.map((row) => [row.reason, row.outcome])).toEqual([["topUp", "notApplied"]]);
    expect(await w.sim.totals(brand.subWorkspaceId)).toEqual(rows[0]!.before);
  });
});
