import { randomUUID } from "node:crypto";

import { describe, expect, it } from "vitest";

import { publishWindowOf } from "../../../src/allocation/publishBound.ts";
import { withPublishRecording } from "../../../src/allocation/publishRecorder.ts";
import { findLastPublish } from "../../../src/db/allocation/findLastPublish.ts";
import type { Units } from "../../../src/domain/allocation.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import type { ServiceEvents } from "../../../src/observability/events.ts";
import {
  type AllocationWorld,
  allocationWorldPerTest,
  drainPool,
  TOKEN,
} from "../../support/allocationWorld.ts";

/**
 * Rebalancing inside a sibling's publish-lag window (docs/decisions/0030), against the simulator
 * with `used` lagging every read after a publish: a publish Serenity made inside a guarded section
 * is recorded with the units it moved, and the sibling is lowered to `max(read used, used before +
 * moved) + drafted` — never to the lagging read — instead of being skipped; a sibling whose read
 * shows usage Serenity's publishes cannot explain keeps the conservative rule (skipped).
 */

const worlds = allocationWorldPerTest();

async function truth(t: AllocationWorld, workspaceId: string) {
  return (await t.sim.dump()).workspaces.find((workspace) => workspace.id === workspaceId)!.resources;
}

/**
 * A sibling that Serenity filled through one guarded section: a project with `texts` prompts (one
 * model, so `texts` prompt units), published through the recording gateway — so every later read
 * shows `used` without them (usedLagReads).
 */
async function publishedSibling(t: AllocationWorld, carve: Units, texts: number): Promise<string> {
  const ws = await t.newSubWorkspace(carve);
  const gateway = withPublishRecording(t.client, {
    db: worlds.db.db,
    clock: t.deps.clock,
    logger: t.deps.logger,
    env: t.env,
  });
  await t.guardFor(ws).section({ projects: 1, prompts: texts }, async (write) => {
    const projectId = await write("projectCreate", () => t.createProject(ws), { projects: 1 });
    await gateway.projects.patchProject(TOKEN, ws, projectId, { primaryUrl: "https://brand.example/" });
    await write(
      "promptCreate",
      () =>
        gateway.projects.createPrompts(TOKEN, ws, projectId, {
          texts: Array.from({ length: texts }, (_, i) => `text ${i}`),
          createdBy: "test",
        }),
      { prompts: texts },
    );
    await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
  });
  return ws;
}

describe("rebalancing inside the publish-lag window", () => {
  it("lowers a sibling Serenity published into to what its publish bounds, never to the lagging read", async () => {
    const t = await worlds.start({ settings: { usedLagReads: 1_000 } });
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const b = await publishedSibling(t, { projects: 1, prompts: 300 }, 120);
    const siblings = [a, b].map((id) => ({ brandId: randomUUID(), subWorkspaceId: id }));
    t.deps.siblings = async () => siblings;
    await t.sim.control("/quota", { workspaceId: a, prompts: { used: 100 } });
    await drainPool(t);
    // The publish carries its basis: the read's used (0) and what it moved (1 project, 120 prompts).
    expect((await findLastPublish(worlds.db.db, b, publishWindowOf(t.deps)))?.bound).toEqual({
      used: { projects: 1, prompts: 120 },
      movedInWindow: { projects: 1, prompts: 120 },
    });
    const lagging = await t.client.users.getResources(TOKEN, b);
    expect(lagging.prompts).toMatchObject({ used: 0, drafted: 0, total: 300 });
    const considered: ServiceEvents["allocation.rebalanceSibling"][] = [];
    t.events.on("allocation.rebalanceSibling", (event) => considered.push(event));

    // A needs 200 more; only B has slack: 300 − 120 = 180 reclaimable, not 300 − 1 as the read says.
    const refused = await t.ensure(a, { prompts: 200 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe("orgPoolExhausted");
    const b1 = await truth(t, b);
    expect(b1.prompts).toMatchObject({ used: 120, total: 120 });
    expect(b1.projects).toMatchObject({ used: 1, total: 1 });
    expect(considered.map((event) => event.outcome)).toEqual(["lowered"]);

    // What B gave is in the pool: a smaller need is served from it.
    expect(await t.ensure(a, { prompts: 180 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 280 },
    });
  });

  it("skips a sibling whose read shows more used than Serenity's publishes can have made (another client wrote there)", async () => {
    const t = await worlds.start({ settings: { usedLagReads: 1_000 } });
    const a = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const b = await publishedSibling(t, { projects: 1, prompts: 300 }, 120);
    t.deps.siblings = async () => [a, b].map((id) => ({ brandId: randomUUID(), subWorkspaceId: id }));
    await t.sim.control("/quota", { workspaceId: a, prompts: { used: 100 } });
    // Another client of the account used 150 prompt units in B, outside Serenity.
    await t.sim.control("/quota", { workspaceId: b, prompts: { used: 270 } });
    await t.sim.control("/settings", { usedLagReads: 0 });
    await drainPool(t);
    const considered: ServiceEvents["allocation.rebalanceSibling"][] = [];
    t.events.on("allocation.rebalanceSibling", (event) => considered.push(event));

    await expect(t.ensure(a, { prompts: 20 })).rejects.toMatchObject({ code: "orgPoolExhausted" });
    expect((await truth(t, b)).prompts.total).toBe(300);
    expect(considered.map((event) => event.outcome)).toEqual(["publishLag"]);
  });
});
