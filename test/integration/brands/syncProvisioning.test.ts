import { randomUUID } from "node:crypto";

import { describe, expect, it } from "vitest";

import { brands } from "../../../src/db/schema.ts";
import { type ProvisioningWorld, useProvisioningWorld } from "../../support/provisioningWorld.ts";
import { catalogueLanguageId } from "../../support/simulator.ts";

let w: ProvisioningWorld;
useProvisioningWorld((world) => (w = world));

const brandsUrl = (orgId = w.orgId) => `/v2/orgs/${orgId}/brands`;
const usEn = { market: "US", languageCode: "en" };
const unique = (name: string) => `${name} ${randomUUID().slice(0, 8)}`;

describe("create brand with semrushMarket (sync)", () => {
  it("creates the sub-workspace, settles it, points the brand at it and creates the initial market", async () => {
    const name = unique("Lumiere");
    const response = await w.call("POST", brandsUrl(), {
      name,
      domain: "lumiere.example",
      primaryUrl: "https://lumiere.example/",
      semrushMarket: usEn,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ name, status: "active", mode: "subworkspace" });
    const [child] = await w.childrenTitled(name);
    expect(child).toBeDefined();
    expect(response.body.subWorkspaceId).toBe(child!.id);
    expect(response.body.provisioning).toEqual({ status: "ready", error: null, jobId: null });

    const shape = await w.callShape({ ws: child!.id });
    // Adoption look-up, the create, status polls until ready, then the market's calls in the new workspace.
    expect(shape[0]).toBe("GET UM/v1/workspaces/{parent}/family");
    expect(shape[1]).toBe("POST UM/v2/workspaces/{parent}/child");
    const polls = shape.slice(2).filter((call) => call === "GET UM/v1/workspaces/{ws}/status");
    expect(polls.length).toBeGreaterThanOrEqual(2);
    const lastPoll = shape.lastIndexOf("GET UM/v1/workspaces/{ws}/status");
    expect(shape.slice(2, lastPoll + 1).every((call) => call === "GET UM/v1/workspaces/{ws}/status")).toBe(
      true,
    );
    const createProject = shape.indexOf("POST PE/v1/workspaces/{ws}/projects");
    expect(createProject).toBeGreaterThan(lastPoll);
    expect(
      shape.some((call) => /^POST PE\/v1\/workspaces\/\{ws\}\/projects\/[^/]+\/publish$/.test(call)),
    ).toBe(true);
    // Nothing was written into the org's parent.
    expect(shape.filter((call) => call.includes("{parent}/projects"))).toEqual([]);

    const market = await w.call("GET", `${brandsUrl()}/${response.body.id}/serenity/markets`);
    expect(market.status).toBe(200);
    expect(market.body.items).toMatchObject([{ geoTargetId: 2840, languageCode: "en" }]);
  });

  it("answers 400 before any write or upstream call when the org has no parent workspace", async () => {
    const orgId = await w.createOrg(null);
    await w.sim.clearCalls();
    const response = await w.call(
      "POST",
      brandsUrl(orgId),
      { name: unique("Orphan"), domain: "brand.example", semrushMarket: usEn },
      w.admin,
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: "invalidRequest",
      message: "Organization has no Semrush workspace configured",
    });
    expect(await w.sim.calls()).toEqual([]);
    const list = await w.call("GET", brandsUrl(orgId), undefined, w.admin);
    expect(list.body.items).toEqual([]);
  });

  it("adopts the workspace a create left behind when it timed out after committing (504)", async () => {
    const name = unique("Timeout");
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { afterCommit504: true },
      times: 1,
    });
    const response = await w.call("POST", brandsUrl(), {
      name,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(response.status).toBe(201);
    const children = await w.childrenTitled(name);
    expect(children).toHaveLength(1);
    expect(response.body.subWorkspaceId).toBe(children[0]!.id);
    const shape = await w.callShape({ ws: children[0]!.id });
    expect(shape.slice(0, 3)).toEqual([
      "GET UM/v1/workspaces/{parent}/family",
      "POST UM/v2/workspaces/{parent}/child",
      "GET UM/v1/workspaces/{parent}/family",
    ]);
    expect(shape.filter((call) => call.endsWith("/child"))).toHaveLength(1);
  });

  it("adopts a single empty, unclaimed same-title workspace instead of creating one", async () => {
    const name = unique("Adoptee");
    const existing = await w.createSubWorkspace(name);
    await w.sim.clearCalls();
    const response = await w.call("POST", brandsUrl(), {
      name,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(response.status).toBe(201);
    expect(response.body.subWorkspaceId).toBe(existing);
    expect((await w.callShape()).filter((call) => call.endsWith("/child"))).toEqual([]);
  });

  it("refuses an ambiguous adoption (two same-title ready workspaces) with 409 and creates nothing", async () => {
    const name = unique("Twins");
    const first = await w.createSubWorkspace(name);
    const second = await w.createSubWorkspace(name);
    await w.sim.clearCalls();
    const response = await w.call("POST", brandsUrl(), {
      name,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(response.status).toBe(409);
    expect(response.body.error).toBe("ambiguousWorkspace");
    expect(response.raw).not.toContain(first);
    expect(response.raw).not.toContain(second);
    expect((await w.callShape()).filter((call) => call.endsWith("/child"))).toEqual([]);
  });

  it("never adopts a workspace another brand points at, nor one holding projects", async () => {
    const claimedName = unique("Claimed");
    const owner = await w.call("POST", brandsUrl(), {
      name: claimedName,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(owner.status).toBe(201);
    // A second brand of the same name is refused now ...
    const refused = await w.call("POST", brandsUrl(), {
      name: claimedName.toUpperCase(),
      domain: "brand.example",
      semrushMarket: { market: "FR", languageCode: "fr" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("brandExists");
    // ... but one made before the rule (no name key, as the migration leaves such twins) still
    // exists: activating it never adopts the first one's workspace (claimed, and with a project).
    const [legacy] = await w.t.db.db
      .insert(brands)
      .values({
        orgId: w.orgId,
        name: claimedName,
        domain: "brand.example",
        status: "pending",
        createdAt: new Date(),
        updatedAt: new Date(),
      })
      .returning();
    const second = await w.call("POST", `${brandsUrl()}/${legacy!.id}/serenity/activate`, {
      markets: [{ market: "FR", languageCode: "fr" }],
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const activated = await w.call("GET", `${brandsUrl()}/${legacy!.id}`);
    expect(activated.body.subWorkspaceId).not.toBeNull();
    expect(activated.body.subWorkspaceId).not.toBe(owner.body.subWorkspaceId);

    // An unclaimed same-title workspace that holds a project is not adoptable either.
    const busyName = unique("Busy");
    const busy = await w.createSubWorkspace(busyName);
    const project = await fetch(`${w.sim.url}/enterprise/projects/api/v1/workspaces/${busy}/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.admin}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "x",
        type: "ai",
        country_code: "us",
        location_id: 2840,
        location_name: "United States",
        language_id: catalogueLanguageId("en"),
      }),
    });
    expect(project.status).toBe(201);
    const third = await w.call("POST", brandsUrl(), {
      name: busyName,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(third.status).toBe(201);
    expect(third.body.subWorkspaceId).not.toBe(busy);
  });

  it("a zombie hits the sync budget: 504, brand marked failed, and a retry adopts the workspace once it settled", async () => {
    const name = unique("Zombie");
    await w.sim.control("/status", { title: name, status: "not ready" });
    const before = w.clock.now().getTime();
    const response = await w.call("POST", brandsUrl(), {
      name,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(response.status).toBe(504);
    expect(response.body.error).toBe("subworkspaceCreationTimeout");
    // The budget (10 s) was spent on the injected clock, not in real time.
    expect(w.clock.now().getTime() - before).toBeGreaterThanOrEqual(10_000);
    const [zombie] = await w.childrenTitled(name);
    expect(zombie).toBeDefined();
    expect(response.raw).not.toContain(zombie!.id);

    const list = await w.call("GET", brandsUrl());
    const brand = list.body.items.find((item: { name: string }) => item.name === name);
    expect(brand).toMatchObject({
      status: "pending",
      mode: "subworkspace",
      subWorkspaceId: null,
      provisioning: { status: "failed", error: "Workspace did not settle in time" },
    });

    // The workspace settles later; activating the brand adopts it instead of creating another.
    await w.sim.control("/status", { workspaceId: zombie!.id, status: "created" });
    await w.sim.clearCalls();
    const retry = await w.call("POST", `${brandsUrl()}/${brand.id}/serenity/activate`, {});
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ brandId: brand.id, status: "active", markets: [] });
    expect((await w.callShape()).filter((call) => call.endsWith("/child"))).toEqual([]);
    expect(await w.brand(brand.id)).toMatchObject({
      subWorkspaceId: zombie!.id,
      status: "active",
      provisioningStatus: "ready",
      provisioningError: null,
    });
  });

  it("a terminal status answers 502 at once and marks the brand failed", async () => {
    const name = unique("Broken");
    await w.sim.control("/status", { title: name, status: "creation failed" });
    const before = w.clock.now().getTime();
    const response = await w.call("POST", brandsUrl(), {
      name,
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(response.status).toBe(502);
    expect(response.body.error).toBe("subworkspaceCreationFailed");
    expect(w.clock.now().getTime() - before).toBeLessThan(10_000);
    const brand = (await w.call("GET", brandsUrl())).body.items.find(
      (item: { name: string }) => item.name === name,
    );
    expect(brand.provisioning).toEqual({
      status: "failed",
      error: "Workspace creation failed upstream",
      jobId: null,
    });
  });

  it("maps an upstream 403 on the create to 403 with the generic sentence, and a 500 to serenityUpstreamError", async () => {
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { status: 403, body: { message: "invalid access attempt" } },
      times: 1,
    });
    const forbidden = await w.call("POST", brandsUrl(), {
      name: unique("Denied"),
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error: "forbidden", message: "Upstream authorization failed" });
    // Twice: one failed create that left nothing is sent once more (create-or-adopt, ADR 0015).
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { status: 500, body: "boom <html>", contentType: "text/html" },
      times: 2,
    });
    const broken = await w.call("POST", brandsUrl(), {
      name: unique("Boom"),
      domain: "brand.example",
      semrushMarket: usEn,
    });
    expect(broken.status).toBe(502);
    expect(broken.body.error).toBe("serenityUpstreamError");
    expect(broken.raw).not.toContain("boom");
  });

  it("refuses a semrushMarket without a domain or primary URL before any upstream call", async () => {
    const response = await w.call("POST", brandsUrl(), { name: unique("Nameless"), semrushMarket: usEn });
    expect(response.status).toBe(400);
    expect(await w.sim.calls()).toEqual([]);
  });

  it("validates async and semrushMarket", async () => {
    const badAsync = await w.call("POST", brandsUrl(), { name: "x", async: "yes" });
    expect(badAsync.status).toBe(400);
    expect(badAsync.body.message).toBe("async must be a boolean");
    const badMarket = await w.call("POST", brandsUrl(), {
      name: "x",
      semrushMarket: { market: "USA", languageCode: "en" },
    });
    expect(badMarket.status).toBe(400);
    const unknownCountry = await w.call("POST", brandsUrl(), {
      name: "x",
      semrushMarket: { market: "QQ", languageCode: "en" },
    });
    expect(unknownCountry.status).toBe(400);
    expect(await w.sim.calls()).toEqual([]);
  });

  it("async: true runs the synchronous path while SERENITY_ASYNC_PROVISIONING is off", async () => {
    process.env.SERENITY_ASYNC_PROVISIONING = "false";
    try {
      const response = await w.call("POST", brandsUrl(), {
        name: unique("Later"),
        domain: "brand.example",
        semrushMarket: usEn,
        async: true,
      });
      expect(response.status).toBe(201);
      expect(response.body.status).toBe("active");
    } finally {
      delete process.env.SERENITY_ASYNC_PROVISIONING;
    }
  });
});
