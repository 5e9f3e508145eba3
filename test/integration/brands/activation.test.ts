import { randomUUID } from "node:crypto";

import { describe, expect, it } from "vitest";

import { passthroughGuard } from "../../support/fakeGuards.ts";
import { type ProvisioningWorld, pumping, useProvisioningWorld } from "../../support/provisioningWorld.ts";
import { nextTurn } from "../../support/wait.ts";

let w: ProvisioningWorld;
useProvisioningWorld((world) => (w = world));

const brandsUrl = (orgId = w.orgId) => `/v2/orgs/${orgId}/brands`;
const activateUrl = (brandId: string, orgId = w.orgId) => `${brandsUrl(orgId)}/${brandId}/serenity/activate`;
const deactivateUrl = (brandId: string, orgId = w.orgId) =>
  `${brandsUrl(orgId)}/${brandId}/serenity/deactivate`;
const unique = (name: string) => `${name} ${randomUUID().slice(0, 8)}`;

async function flatBrand(name = unique("Flat")): Promise<string> {
  const response = await w.call("POST", brandsUrl(), { name, domain: "brand.example" });
  expect(response.status).toBe(201);
  return response.body.id;
}

describe("activate", () => {
  it("gives a flat brand a sub-workspace, creates the requested markets and reports existing ones as `exists` (deprecated: 409)", async () => {
    const name = unique("Activated");
    const brandId = await flatBrand(name);
    const first = await w.call("POST", activateUrl(brandId), {
      markets: [
        { market: "US", languageCode: "en" },
        { market: "fr", languageCode: "FR" },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      brandId,
      status: "active",
      markets: [
        { geoTargetId: 2840, languageCode: "en", outcome: "created", status: 201 },
        { geoTargetId: 2250, languageCode: "fr", outcome: "created", status: 201 },
      ],
    });
    const [child] = await w.childrenTitled(name);
    expect(await w.brand(brandId)).toMatchObject({ subWorkspaceId: child!.id, status: "active" });

    await w.sim.clearCalls();
    const again = await w.call("POST", activateUrl(brandId), {
      markets: [
        { market: "US", languageCode: "en" },
        { market: "DE", languageCode: "de" },
      ],
    });
    expect(again.status).toBe(200);
    expect(again.body.markets).toEqual([
      { geoTargetId: 2840, languageCode: "en", outcome: "exists", status: 409 },
      { geoTargetId: 2276, languageCode: "de", outcome: "created", status: 201 },
    ]);
    // An active brand with its workspace is not provisioned again.
    const shape = await w.callShape();
    expect(shape.filter((call) => call.includes("/family") || call.endsWith("/child"))).toEqual([]);
  });

  it("answers 409 semrushProvisioningInProgress, with no upstream call, while a fresh async attempt owns the brand", async () => {
    const brandId = await flatBrand();
    await w.setBrand(brandId, {
      provisioningStatus: "pending",
      provisioningAttemptId: randomUUID(),
      updatedAt: new Date(w.clock.now().getTime() - 60_000),
    });
    const response = await w.call("POST", activateUrl(brandId), {});
    expect(response.status).toBe(409);
    expect(response.body.error).toBe("semrushProvisioningInProgress");
    expect(await w.sim.calls()).toEqual([]);
    expect((await w.brand(brandId)).provisioningStatus).toBe("pending");
  });

  it("fails a stale attempt (T5 went stale) and proceeds", async () => {
    const brandId = await flatBrand();
    await w.setBrand(brandId, {
      provisioningStatus: "pending",
      provisioningAttemptId: randomUUID(),
      updatedAt: new Date(w.clock.now().getTime() - 11 * 60_000),
    });
    const response = await w.call("POST", activateUrl(brandId), {});
    expect(response.status).toBe(200);
    expect(await w.brand(brandId)).toMatchObject({
      status: "active",
      provisioningStatus: "ready",
      provisioningError: null,
    });
    expect((await w.brand(brandId)).subWorkspaceId).not.toBeNull();
  });

  it("does not overwrite an async attempt that started while the sync path was waiting (409)", async () => {
    const name = unique("Raced");
    const brandId = await flatBrand(name);
    await w.sim.control("/status", { title: name, notReadyReads: 6 });
    const attemptId = randomUUID();
    const request = w.t.app.inject({
      method: "POST",
      url: activateUrl(brandId),
      headers: { authorization: `Bearer ${w.token}` },
      payload: {},
    });
    // Drive the clock by hand: at the settle loop's first wait, an async producer takes the brand (T1).
    let settled = false;
    void request.finally(() => {
      settled = true;
    });
    let started = false;
    while (!settled) {
      if (w.clock.pendingSleeps > 0) {
        if (!started) {
          await w.setBrand(brandId, {
            provisioningStatus: "pending",
            provisioningAttemptId: attemptId,
            updatedAt: w.clock.now(),
          });
          started = true;
        }
        w.clock.advance(250);
      }
      await nextTurn(1);
    }
    const response = await request;
    expect(started).toBe(true);
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toBe("semrushProvisioningInProgress");
    expect(await w.brand(brandId)).toMatchObject({
      subWorkspaceId: null,
      provisioningStatus: "pending",
      provisioningAttemptId: attemptId,
    });
  });

  it("refuses a brand whose sub-workspace is the org's parent (workspaceMisconfigured)", async () => {
    const brandId = await flatBrand();
    const org = (await w.call("GET", `/v2/orgs/${w.orgId}`)).body;
    await w.setBrand(brandId, { subWorkspaceId: org.parentWorkspaceId });
    const response = await w.call("POST", activateUrl(brandId), {});
    expect(response.status).toBe(409);
    expect(response.body.error).toBe("workspaceMisconfigured");
    const deactivate = await w.call("POST", deactivateUrl(brandId));
    expect(deactivate.status).toBe(409);
    expect(await w.sim.calls()).toEqual([]);
    await w.setBrand(brandId, { subWorkspaceId: null });
  });

  it("accepts an activate without a body", async () => {
    const brandId = await flatBrand();
    const response = await pumping(
      w.clock,
      w.t.app.inject({
        method: "POST",
        url: activateUrl(brandId),
        headers: { authorization: `Bearer ${w.token}` },
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ brandId, status: "active", markets: [] });
  });
});

describe("deactivate", () => {
  it("deletes every project of the sub-workspace, clears the pointer and the market rows, and sets the brand pending", async () => {
    const name = unique("Leaving");
    const brandId = await flatBrand(name);
    const activated = await w.call("POST", activateUrl(brandId), {
      markets: [
        { market: "US", languageCode: "en" },
        { market: "GB", languageCode: "en" },
      ],
    });
    expect(activated.status).toBe(200);
    const workspaceId = (await w.brand(brandId)).subWorkspaceId!;
    const projectIds = [...w.sim.simulator.store.projects.values()]
      .filter((project) => project.workspaceId === workspaceId)
      .map((project) => project.id);
    expect(projectIds).toHaveLength(2);

    await w.sim.clearCalls();
    const response = await w.call("POST", deactivateUrl(brandId));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ brandId, status: "pending" });
    const shape = await w.callShape({ ws: workspaceId, p1: projectIds[0]!, p2: projectIds[1]! });
    expect(shape[0]).toBe("GET PE/v1/workspaces/{ws}/projects");
    expect(shape.slice(1).sort()).toEqual(
      ["DELETE PE/v1/workspaces/{ws}/projects/{p1}", "DELETE PE/v1/workspaces/{ws}/projects/{p2}"].sort(),
    );
    // The workspace itself is never deleted.
    expect(shape.some((call) => call === "DELETE UM/v1/workspaces/{ws}")).toBe(false);
    expect((await w.childrenTitled(name)).map((child) => child.id)).toEqual([workspaceId]);

    expect(await w.brand(brandId)).toMatchObject({ subWorkspaceId: null, status: "pending" });
    // A deactivated brand never looks flat: its market writes are refused, not sent to the parent.
    const markets = await w.call("GET", `${brandsUrl()}/${brandId}/serenity/markets`);
    expect(markets.status).toBe(200);
    expect(markets.body.items).toEqual([]);
    const create = await w.call("POST", `${brandsUrl()}/${brandId}/serenity/markets`, {
      market: "US",
      languageCode: "en",
    });
    expect(create.status).toBe(409);
    expect(create.body.error).toBe("semrushProvisioningIncomplete");

    // Re-activation adopts the emptied workspace instead of creating a second one.
    await w.sim.clearCalls();
    const again = await w.call("POST", activateUrl(brandId), {});
    expect(again.status).toBe(200);
    expect((await w.brand(brandId)).subWorkspaceId).toBe(workspaceId);
    expect((await w.callShape()).filter((call) => call.endsWith("/child"))).toEqual([]);
  });

  it("counts a project already gone upstream (404) as deleted", async () => {
    const brandId = await flatBrand();
    await w.call("POST", activateUrl(brandId), { markets: [{ market: "US", languageCode: "en" }] });
    await w.sim.control("/faults", {
      match: { method: "DELETE", pathPattern: "/projects/[^/]+$" },
      action: { status: 404, body: { message: "not found" } },
      times: 1,
    });
    const response = await w.call("POST", deactivateUrl(brandId));
    expect(response.status).toBe(200);
    expect((await w.brand(brandId)).subWorkspaceId).toBeNull();
  });

  it("fails (502) and keeps the pointer when a project cannot be deleted", async () => {
    const brandId = await flatBrand();
    await w.call("POST", activateUrl(brandId), { markets: [{ market: "US", languageCode: "en" }] });
    const pointer = (await w.brand(brandId)).subWorkspaceId;
    await w.sim.control("/faults", {
      match: { method: "DELETE", pathPattern: "/projects/[^/]+$" },
      action: { status: 500, body: "kaboom" },
    });
    const response = await w.call("POST", deactivateUrl(brandId));
    expect(response.status).toBe(502);
    expect(response.body.error).toBe("serenityUpstreamError");
    expect(response.raw).not.toContain("kaboom");
    // Out of `active` before the listing (so no create can finish there meanwhile); the pointer
    // stays for a retry of the deactivate, or an activate that takes the brand back.
    expect(await w.brand(brandId)).toMatchObject({ subWorkspaceId: pointer, status: "pending" });
  });

  it("cancels a pending attempt first (T6) so a later promote cannot resurrect the brand", async () => {
    const brandId = await flatBrand();
    await w.setBrand(brandId, {
      provisioningStatus: "pending",
      provisioningAttemptId: randomUUID(),
      provisioningCandidateWorkspaceId: "ws-candidate",
      updatedAt: w.clock.now(),
    });
    const response = await w.call("POST", deactivateUrl(brandId));
    expect(response.status).toBe(200);
    expect(await w.brand(brandId)).toMatchObject({
      status: "pending",
      subWorkspaceId: null,
      provisioningStatus: "failed",
      provisioningError: "Deactivated while provisioning",
    });
    expect(await w.sim.calls()).toEqual([]);
  });

  it("releases the allocation to the minimum through the metered-write seam", async () => {
    const releases: { floor: unknown; reason: string; subWorkspaceId: string | null }[] = [];
    const { startTestSimulator } = await import("../../support/simulator.ts");
    const { createTestApp } = await import("../../support/testApp.ts");
    const sim = await startTestSimulator({ seed: "unmetered" });
    const app = await createTestApp({
      clock: w.clock,
      gateway: { url: sim.url, maxRetries: 0 },
      meteredWrites: (context) => ({
        ...passthroughGuard,
        releaseSurplus: async (floor, reason) => {
          releases.push({ floor, reason, subWorkspaceId: context.subWorkspaceId });
        },
      }),
    });
    try {
      const { UNMETERED_PARENT_WORKSPACE_ID } = await import("../../../src/simulator/seeds.ts");
      const admin = await app.token({ admin: true });
      const inject = (method: "POST", url: string, payload?: object) =>
        pumping(
          w.clock,
          app.app.inject({ method, url, headers: { authorization: `Bearer ${admin}` }, payload }),
        );
      const orgId = (
        await inject("POST", "/v2/orgs", { name: "O", parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID })
      ).json().id;
      const brandId = (
        await inject("POST", `/v2/orgs/${orgId}/brands`, { name: "Seam", domain: "seam.example" })
      ).json().id;
      expect(
        (await inject("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/activate`, {})).statusCode,
      ).toBe(200);
      const [row] = (
        await app.services.brands.list({ sub: "a", orgIds: [], isAdmin: true, bearer: admin }, orgId)
      ).filter((brand) => brand.id === brandId);
      expect(
        (await inject("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/deactivate`)).statusCode,
      ).toBe(200);
      expect(releases).toEqual([
        { floor: { projects: 1, prompts: 1 }, reason: "deactivate", subWorkspaceId: row!.subWorkspaceId },
      ]);
    } finally {
      await app.close();
      await sim.close();
    }
  });
});

describe("tenancy", () => {
  it("answers 404 on every provisioning route across orgs, with no upstream call", async () => {
    const otherOrg = await w.createOrg(await w.sim.addParent({ metered: false }));
    const foreign = (
      await w.call("POST", brandsUrl(otherOrg), { name: unique("Foreign"), domain: "f.example" }, w.admin)
    ).body.id as string;
    const mine = await flatBrand();
    await w.sim.clearCalls();
    const probes: [string, string, unknown][] = [
      [
        "POST",
        brandsUrl(otherOrg),
        { name: "x", domain: "x.example", semrushMarket: { market: "US", languageCode: "en" } },
      ],
      ["POST", activateUrl(foreign, otherOrg), {}],
      ["POST", deactivateUrl(foreign, otherOrg), undefined],
      ["POST", activateUrl(foreign), {}],
      ["POST", deactivateUrl(foreign), undefined],
      ["POST", activateUrl(mine, otherOrg), {}],
      ["POST", deactivateUrl(mine, otherOrg), undefined],
      ["POST", activateUrl(randomUUID()), {}],
      ["POST", deactivateUrl(randomUUID()), undefined],
    ];
    for (const [method, url, body] of probes) {
      const response = await w.call(method, url, body);
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(response.body.error).toBe("notFound");
    }
    expect(await w.sim.calls()).toEqual([]);
    expect((await w.brand(foreign)).status).toBe("pending");
  });

  it("validates path ids before any lookup", async () => {
    const response = await w.call("POST", `${brandsUrl()}/not-a-uuid/serenity/activate`, {});
    expect(response.status).toBe(400);
  });
});
