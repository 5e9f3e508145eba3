import { randomUUID } from "node:crypto";

import { expect, it } from "vitest";

import { markBrandPending } from "../../../src/db/brands/markBrandPending.ts";
import { findMarket } from "../../../src/db/markets/findMarket.ts";
import { listReadyMarkets } from "../../../src/db/markets/listReadyMarkets.ts";
import {
  type AsyncProvisioningWorld,
  pointerOf,
  useAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { HELD_UNTIL_RELEASED_MS } from "../../support/simulator.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * Deactivate racing a synchronous market create never leaves a live project behind a successful
 * deactivate (spec/provisioning.md §8). Two fences make it so. The brand's lease (ADR 0015)
 * serialises them: a create that arrives while a deactivate is inside its upstream work waits for
 * the brand and answers `brandBusy`, without a project call. Below that lease, deactivate takes
 * the brand out of `active` before it lists the projects to delete, and a create marks its market
 * ready only while the brand is still `active` on that workspace, so a project that lands after
 * the listing is undone by its own create. Each race is held open by the simulator (a call held
 * until the test releases it), never by a real-time delay that a loaded machine may outrun.
 */
let w: AsyncProvisioningWorld;
useAsyncProvisioningWorld((world) => (w = world));

const url = (brandId: string, path: string) => `${w.brandsUrl()}/${brandId}${path}`;

/** Waits (polling the simulator's call log, no fixed sleep) until a call matching `wanted` answered. */
const answered = (wanted: (call: { method: string; path: string }) => boolean) =>
  waitFor(async () => (await w.sim.calls()).some(wanted), { what: "the awaited upstream call" });

it("a market create while a deactivate is inside its project deletes waits for the brand, answers brandBusy and creates nothing", async () => {
  await w.setSettings({ settleMode: "reads", settleReads: 0 });
  const created = await w.call("POST", w.brandsUrl(), {
    name: `Active ${randomUUID().slice(0, 6)}`,
    domain: "brand.example",
  });
  const brandId = created.body.id as string;
  expect((await w.call("POST", url(brandId, "/serenity/activate"), {})).status).toBe(200);
  const workspaceId = pointerOf(await w.brand(brandId));
  const first = await w.call("POST", url(brandId, "/serenity/markets"), { market: "FR", languageCode: "en" });
  expect(first.status).toBe(201);

  // The simulator holds the deactivate's first project delete until the test releases it: the
  // create runs entirely inside it, after the deactivate listed the projects.
  await w.sim.control("/faults", {
    match: { method: "DELETE", pathPattern: "/projects/" },
    action: { delayMs: HELD_UNTIL_RELEASED_MS },
    times: 1,
  });
  await w.sim.clearCalls();
  const deactivating = w.call("POST", url(brandId, "/serenity/deactivate"));
  await answered(
    (call) =>
      call.method === "GET" && call.path === `/enterprise/projects/api/v1/workspaces/${workspaceId}/projects`,
  );
  await waitFor(() => w.sim.held() === 1, { what: "the deactivate's project delete held" });
  const creating = await w.call("POST", url(brandId, "/serenity/markets"), {
    market: "US",
    languageCode: "en",
  });
  // The create answered while the deactivate was still inside its delete, and called nothing
  // upstream that creates a project.
  expect(w.sim.held()).toBe(1);
  expect(creating.status).toBe(503);
  expect(creating.body.error).toBe("brandBusy");
  expect((await w.sim.calls()).filter((call) => call.method === "POST")).toEqual([]);
  w.sim.release();
  const deactivated = await deactivating;

  expect(deactivated.status).toBe(200);
  expect(await w.projectsOf(workspaceId)).toBe(0);
  expect(await w.brand(brandId)).toMatchObject({ status: "pending", subWorkspaceId: null });
  expect(await listReadyMarkets(w.t.db.db, brandId)).toEqual([]);
});

it("a create whose brand leaves `active` while its writes are in flight answers invalidState and undoes its project", async () => {
  await w.setSettings({ settleMode: "reads", settleReads: 0 });
  const created = await w.call("POST", w.brandsUrl(), {
    name: `Moving ${randomUUID().slice(0, 6)}`,
    domain: "brand.example",
  });
  const brandId = created.body.id as string;
  expect((await w.call("POST", url(brandId, "/serenity/activate"), {})).status).toBe(200);
  const workspaceId = pointerOf(await w.brand(brandId));

  // The simulator holds the publish until the test releases it; while it is in flight the brand
  // leaves `active` (what a deactivate does first), so the create cannot mark its market ready.
  await w.sim.control("/faults", {
    match: { method: "POST", pathPattern: "/publish$" },
    action: { delayMs: HELD_UNTIL_RELEASED_MS },
    times: 1,
  });
  await w.sim.clearCalls();
  const creating = w.call("POST", url(brandId, "/serenity/markets"), { market: "DE", languageCode: "de" });
  await answered(
    (call) =>
      call.method === "POST" &&
      call.path === `/enterprise/projects/api/v1/workspaces/${workspaceId}/projects`,
  );
  await waitFor(() => w.sim.held() === 1, { what: "the create's publish held" });
  await markBrandPending(w.t.db.db, { brandId, now: new Date() });
  w.sim.release();
  const response = await creating;

  expect(response.status).toBe(409);
  expect(response.body.error).toBe("invalidState");
  expect(await w.projectsOf(workspaceId)).toBe(0);
  expect(await findMarket(w.t.db.db, { brandId, geoTargetId: 2276, languageCode: "de" })).toBeUndefined();
});
