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
import { waitFor } from "../../support/wait.ts";

/**
 * Deactivate racing a synchronous market create never leaves a live project behind a successful
 * deactivate (spec/provisioning.md §8). Deactivate takes the brand out of `active` before it lists
 * the projects to delete; a create marks its market ready only while the brand is still `active`
 * on that workspace, so a project that lands after the listing is undone by its own create. Found
 * by an adversarial review: before the fix the create answered 201 and its project outlived the
 * deactivate.
 */
let w: AsyncProvisioningWorld;
useAsyncProvisioningWorld((world) => (w = world));

const url = (brandId: string, path: string) => `${w.brandsUrl()}/${brandId}${path}`;

/** Waits (polling the simulator's call log, no fixed sleep) until a call matching `wanted` answered. */
const answered = (wanted: (call: { method: string; path: string }) => boolean) =>
  waitFor(async () => (await w.sim.calls()).some(wanted), { what: "the awaited upstream call" });

it("a market create whose project lands after deactivate listed the projects fails and undoes its project", async () => {
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

  // The deactivate's first project delete is slow upstream: the create runs entirely inside it,
  // after the deactivate listed the projects.
  await w.sim.control("/faults", {
    match: { method: "DELETE", pathPattern: "/projects/" },
    action: { delayMs: 2_000 },
    times: 1,
  });
  await w.sim.clearCalls();
  const deactivating = w.call("POST", url(brandId, "/serenity/deactivate"));
  await answered(
    (call) =>
      call.method === "GET" && call.path === `/enterprise/projects/api/v1/workspaces/${workspaceId}/projects`,
  );
  const creating = await w.call("POST", url(brandId, "/serenity/markets"), {
    market: "US",
    languageCode: "en",
  });
  const deactivated = await deactivating;

  expect(deactivated.status).toBe(200);
  expect(creating.status).not.toBe(201);
  expect(creating.status).toBeGreaterThanOrEqual(400);
  // The create lost to the deactivate: it says so, rather than claiming the market exists.
  expect(creating.body).not.toContain("marketExists");
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

  // The publish is slow upstream; while it is in flight the brand leaves `active` (what a
  // deactivate does first), so the create cannot mark its market ready.
  await w.sim.control("/faults", {
    match: { method: "POST", pathPattern: "/publish$" },
    action: { delayMs: 1_000 },
    times: 1,
  });
  await w.sim.clearCalls();
  const creating = w.call("POST", url(brandId, "/serenity/markets"), { market: "DE", languageCode: "de" });
  await answered(
    (call) =>
      call.method === "POST" &&
      call.path === `/enterprise/projects/api/v1/workspaces/${workspaceId}/projects`,
  );
  await markBrandPending(w.t.db.db, { brandId, now: new Date() });
  const response = await creating;

  expect(response.status).toBe(409);
  expect(response.body.error).toBe("invalidState");
  expect(await w.projectsOf(workspaceId)).toBe(0);
  expect(await findMarket(w.t.db.db, { brandId, geoTargetId: 2276, languageCode: "de" })).toBeUndefined();
});
