import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { gatewayAllocationUpstream } from "../../../src/allocation/gatewayAllocationUpstream.ts";
import { brands, markets } from "../../../src/db/schema.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import type { JobWorker } from "../../../src/jobs/worker.ts";
import { applyMarketIdentity } from "../../../src/markets/marketIdentity.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { observeUpstream } from "../../../src/operations/observeUpstream.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { workerOf } from "../../support/testApp.ts";

/**
 * Issue 37's routes over HTTP against the simulator (spec/api.md §5): PATCH a brand's identity
 * (bounds, conflicts, uniqueness among live brands, tenancy, Idempotency-Key) and DELETE a brand
 * (202, deactivation then `deleted`, 404 everywhere after, the name free again).
 */

let world: MarketWorld;
let worker: JobWorker;
let otherToken: string;

beforeAll(async () => {
  world = await startMarketWorld();
  worker = workerOf(world.t, createLogger({ level: "warn", destination: world.t.logs }));
  const answer = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  const otherOrg = await world.createOrg(null);
  otherToken = await world.t.token({ sub: "user-2", orgs: [otherOrg] });
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

const usProject = () => world.projects().find((p) => p.locationId === 2840)!;

describe("PATCH /orgs/:orgId/brands/:brandId", () => {
  it("replaces the identity, answers the brand with the propagation job, and the market's project follows", async () => {
    const answer = await world.call("PATCH", brandUrl(), {
      aliases: ["Acme Co", "ACME"],
      competitors: [{ name: "Globex", domain: "globex.example", aliases: ["Globex Corp"] }],
      urls: [
        { url: "https://acme.example/", kind: "owned" },
        { url: "https://social.example/acme", kind: "social" },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({
      id: world.brandId,
      name: "Acme",
      aliases: ["Acme Co", "ACME"],
      competitors: [{ name: "Globex", domain: "globex.example", aliases: ["Globex Corp"] }],
      urls: [
        { url: "https://acme.example/", kind: "owned" },
        { url: "https://social.example/acme", kind: "social" },
      ],
      rejectedAliases: [],
      job: { type: "propagateBrandIdentity", status: "IN_PROGRESS" },
    });
    expect(answer.body.job.location).toBe(
      `/v2/orgs/${world.orgId}/brands/${world.brandId}/serenity/jobs/${answer.body.job.id}`,
    );
    await worker.drain();
    const job = await world.call("GET", answer.body.job.location);
    expect(job.body).toMatchObject({ status: "COMPLETED", result: { status: "done" } });
    // Visible in the org's job list, by its public type.
    const listed = await world.call(
      "GET",
      `/v2/orgs/${world.orgId}/serenity/jobs?type=propagateBrandIdentity&brandId=${world.brandId}`,
    );
    expect(listed.body.items.map((item: { jobId: string }) => item.jobId)).toContain(answer.body.job.id);
    expect(usProject().brandNameDisplay).toBe("Acme");
    // "ACME" is the display name again, case aside: carried once.
    expect(usProject().brandNames).toEqual(["Acme", "Acme Co"]);
    const [market] = await world.t.db.db.select().from(markets).where(eq(markets.brandId, world.brandId));
    expect(market!.identityVersion).toBe((await brandRow()).identityVersion);

    // Benchmarks: the own brand's (aliases, domain) and Globex's, matched by domain; its CI
    // competitor; the brand URLs on the own brand's benchmark with their kind as `type`; published.
    const benchmarks = [...usProject().benchmarks.values()];
    expect(benchmarks.map((b) => [b.mainBrand, b.brandName, b.brandAliases, b.domain])).toEqual([
      [true, "Acme", ["Acme Co"], "acme.example"],
      [false, "Globex", ["Globex Corp"], "globex.example"],
    ]);
    expect(usProject().ciCompetitors.map((c) => c.domain)).toEqual(["globex.example"]);
    expect([...benchmarks[0]!.brandUrls.values()].map((u) => [u.url, u.type])).toEqual([
      ["https://acme.example/", "owned"],
      ["https://social.example/acme", "social"],
    ]);
    expect(usProject().dirty).toBe(false);

    // Running the sync again writes nothing (what a redelivery after a crash does).
    await world.sim.clearCalls();
    const again0 = await applyMarketIdentity(
      world.t.gateway!,
      { bearer: world.token, ws: usProject().workspaceId, pid: usProject().id },
      await brandRow(),
    );
    expect(again0.changed).toBe(false);
    expect((await world.sim.calls()).filter((c) => c.method !== "GET")).toEqual([]);

    // The same identity again: nothing to follow, no job.
    const again = await world.call("PATCH", brandUrl(), { aliases: ["Acme Co", "ACME"] });
    expect(again.status).toBe(200);
    expect(again.body.job).toBeNull();
    expect((await world.call("GET", brandUrl())).body.aliases).toEqual(["Acme Co", "ACME"]);
  });

  it("a newer PATCH supersedes the running propagation; a competitor dropped and a URL's kind changed follow; a rejected alias is reported", async () => {
    const first = await world.call("PATCH", brandUrl(), { aliases: ["Acme Co", "AC"] });
    const second = await world.call("PATCH", brandUrl(), {
      aliases: ["Acme Co", "AC"],
      competitors: [{ name: "Hooli", domain: "hooli.example" }],
      urls: [{ url: "https://acme.example/", kind: "earned" }],
    });
    expect(first.body.job.id).not.toBe(second.body.job.id);
    await worker.drain();
    const firstJob = await world.call("GET", first.body.job.location);
    expect(firstJob.body).toMatchObject({
      status: "COMPLETED",
      result: { status: "superseded", supersededBy: second.body.job.id },
    });
    const secondJob = await world.call("GET", second.body.job.location);
    expect(secondJob.body).toMatchObject({
      status: "COMPLETED",
      result: { status: "done", marketsSynced: 1 },
    });
    const benchmarks = [...usProject().benchmarks.values()];
    expect(benchmarks.map((b) => [b.brandName, b.domain])).toEqual([
      ["Acme", "acme.example"],
      ["Hooli", "hooli.example"],
    ]);
    expect(usProject().ciCompetitors.map((c) => c.domain)).toEqual(["hooli.example"]);
    expect([...benchmarks[0]!.brandUrls.values()].map((u) => [u.url, u.type])).toEqual([
      ["https://acme.example/", "earned"],
    ]);
    // The simulator refuses aliases under 3 characters: reported on the brand, not retried.
    const brand = await world.call("GET", brandUrl());
    expect(brand.body.rejectedAliases).toEqual(["AC"]);
  });

  it("a market created later starts from the brand's current identity", async () => {
    const created = await world.call("POST", world.marketsUrl(), { market: "DE", languageCode: "de" });
    expect(created.status).toBe(201);
    const de = world.projects().find((p) => p.locationId === 2276)!;
    expect([...de.benchmarks.values()].map((b) => [b.brandName, b.domain])).toEqual([
      ["Acme", "acme.example"],
      ["Hooli", "hooli.example"],
    ]);
    expect(de.ciCompetitors.map((c) => c.domain)).toEqual(["hooli.example"]);
    const rows = await world.t.db.db.select().from(markets).where(eq(markets.brandId, world.brandId));
    const version = (await brandRow()).identityVersion;
    expect(rows.map((row) => row.identityVersion)).toEqual(rows.map(() => version));
  });

  it("an alias added or removed re-tags the market's prompts in the same job", async () => {
    const written = await world.call("POST", world.promptsUrl(), {
      items: [{ text: "Are Roadrunners fast enough?", geoTargetId: 2840, languageCode: "en" }],
    });
    expect(written.status).toBe(201);
    const id = written.body.items[0].id as string;
    const typeOf = () => {
      const project = usProject();
      const names = project.prompts.get(id)!.tagIds.map((tagId) => project.tags.get(tagId)!);
      return names.find((tag) => project.tags.get(tag.parentId ?? "")?.name === "type")?.name;
    };
    expect(typeOf()).toBe("non-branded");
    const aliases = (await brandRow()).aliases;
    const added = await world.call("PATCH", brandUrl(), { aliases: [...aliases, "Roadrunner"] });
    await worker.drain();
    expect((await world.call("GET", added.body.job.location)).body.status).toBe("COMPLETED");
    expect(typeOf()).toBe("branded");
    expect(usProject().dirty).toBe(false);
    await world.call("PATCH", brandUrl(), { aliases });
    await worker.drain();
    expect(typeOf()).toBe("non-branded");
  });

  it("a rename reaches the brand's sub-workspace title", async () => {
    const brandId = await world.createBrand({ name: "Titled", domain: "titled.example" });
    const shell = await world.createSubWorkspace("Titled", { projects: 1, prompts: 10 });
    await world.setBrand(brandId, { subWorkspaceId: shell, status: "active", provisioningStatus: "ready" });
    const renamed = await world.call("PATCH", brandUrl(brandId), { name: "Titled Anew" });
    expect(renamed.status).toBe(200);
    expect(renamed.body.job).not.toBeNull();
    await worker.drain();
    expect((await world.call("GET", renamed.body.job.location)).body.status).toBe("COMPLETED");
    expect(world.sim.simulator.store.workspaces.get(shell)!.title).toBe("Titled Anew");
  });

  it("bad input → 400 invalidRequest with the field's pointer, nothing changed", async () => {
    const before = await brandRow();
    const competitor = (i: number) => ({ name: `Rival ${i}`, domain: `rival${i}.example` });
    const bodies: [unknown, string][] = [
      [{ competitors: Array.from({ length: 21 }, (_, i) => competitor(i)) }, "/competitors"],
      [{ urls: [{ url: "ftp://acme.example/file", kind: "owned" }] }, "/urls/0/url"],
      [{ urls: [{ url: "https://acme.example/", kind: "paid" }] }, "/urls/0/kind"],
      [{ aliases: Array.from({ length: 21 }, (_, i) => `alias ${i}`) }, "/aliases"],
      [{ aliases: ["HOOLI"] }, "/aliases/0"], // the stored competitor's name, other case
      [{ aliases: ["Initech"], competitors: [{ name: "initech", domain: "initech.example" }] }, "/aliases/0"],
      [{ name: "   " }, "/name"],
      [{}, ""],
      [
        { competitors: [competitor(1), { name: "Other", domain: "RIVAL1.example" }] },
        "/competitors/1/domain",
      ],
      [{ unknown: true }, ""],
      [
        {
          competitors: [
            { name: "Rival A", domain: "a.example", aliases: ["Shared"] },
            { name: "Rival B", domain: "b.example", aliases: ["shared"] },
          ],
        },
        "/competitors/1/aliases/0",
      ],
    ];
    for (const [body, pointer] of bodies) {
      const answer = await world.call("PATCH", brandUrl(), body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.code).toBe("invalidRequest");
      expect(
        answer.body.errors.map((e: { pointer: string }) => e.pointer),
        JSON.stringify(body).slice(0, 80),
      ).toContain(pointer);
    }
    expect(await brandRow()).toEqual(before);
  });

  it("a name another live brand of the org has → 409 brandExists; another org's caller or an unknown id → 404", async () => {
    const other = await world.createBrand({ name: "Initrode", domain: "initrode.example" });
    const before = await brandRow();
    const taken = await world.call("PATCH", brandUrl(), { name: "INITRODE" });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("brandExists");
    expect(await brandRow()).toEqual(before);
    const foreign = await world.call("PATCH", brandUrl(), { name: "Mine now" }, otherToken);
    expect(foreign.status).toBe(404);
    const unknown = await world.call("PATCH", brandUrl("00000000-0000-4000-8000-000000000000"), {
      name: "X",
    });
    expect(unknown.status).toBe(404);
    const foreignDelete = await world.call("DELETE", brandUrl(other), undefined, otherToken);
    expect(foreignDelete.status).toBe(404);
    expect(await brandRow()).toEqual(before);
  });

  it("with an Idempotency-Key, a repeat answers the first answer and changes nothing more", async () => {
    const send = () =>
      world.t.app.inject({
        method: "PATCH",
        url: brandUrl(),
        headers: { authorization: `Bearer ${world.token}`, "idempotency-key": "rename-once-1" },
        payload: { domain: "acme-renamed.example" },
      });
    const first = await send();
    expect(first.statusCode).toBe(200);
    const version = (await brandRow()).identityVersion;
    const second = await send();
    expect(second.statusCode).toBe(200);
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(second.json()).toEqual(first.json());
    expect((await brandRow()).identityVersion).toBe(version);
    await worker.drain();
  });
});

describe("DELETE /orgs/:orgId/brands/:brandId", () => {
  it("202 with the job; deactivation, then deleted: 404 everywhere under it, its name free again", async () => {
    const brandId = await world.createBrand({ name: "Doomed", domain: "doomed.example" });
    const market = await world.call("POST", world.marketsUrl(brandId), { market: "FR", languageCode: "fr" });
    expect(market.status).toBe(201);
    const answer = await world.call("DELETE", brandUrl(brandId));
    expect(answer.status).toBe(202);
    expect(answer.body.job).toMatchObject({ type: "deleteBrand", status: "IN_PROGRESS" });
    expect(answer.body.job.location).toBe(
      `/v2/orgs/${world.orgId}/serenity/jobs/${answer.body.job.id}/timeline`,
    );
    // A repeat names the same job.
    const repeat = await world.call("DELETE", brandUrl(brandId));
    expect(repeat.body.job.id).toBe(answer.body.job.id);

    await worker.drain();
    const polled = await world.call("GET", answer.body.job.location);
    expect(polled.status).toBe(200);
    expect(polled.body.job).toMatchObject({ status: "COMPLETED", jobType: "deleteBrand" });
    expect((await brandRow(brandId)).status).toBe("deleted");
    for (const [method, url] of [
      ["GET", brandUrl(brandId)],
      ["PATCH", brandUrl(brandId)],
      ["DELETE", brandUrl(brandId)],
      ["GET", world.marketsUrl(brandId)],
      ["GET", `${world.promptsUrl(brandId)}?geoTargetId=2250&languageCode=fr`],
    ] as const) {
      const gone = await world.call(method, url, method === "PATCH" ? { name: "Back" } : undefined);
      expect(gone.status, `${method} ${url}`).toBe(404);
    }
    const list = await world.call("GET", `/v2/orgs/${world.orgId}/brands`);
    expect(list.body.items.map((b: { id: string }) => b.id)).not.toContain(brandId);
    // Its name is free again.
    const reborn = await world.call("POST", `/v2/orgs/${world.orgId}/brands`, { name: "doomed" });
    expect(reborn.status).toBe(201);
  });

  it("a brand with its sub-workspace: projects deleted, allocation released, the shell kept and parked (never an orphan)", async () => {
    const brandId = await world.createBrand({ name: "Shelled", domain: "shelled.example" });
    const shell = await world.createSubWorkspace("Shelled", { projects: 2, prompts: 50 });
    await world.setBrand(brandId, { subWorkspaceId: shell, status: "active", provisioningStatus: "ready" });
    const market = await world.call("POST", world.marketsUrl(brandId), { market: "DE", languageCode: "de" });
    expect(market.status, JSON.stringify(market.body)).toBe(201);
    expect(world.projects(shell)).toHaveLength(1);

    const answer = await world.call("DELETE", brandUrl(brandId));
    expect(answer.status).toBe(202);
    await worker.drain();
    const row = await brandRow(brandId);
    expect(row).toMatchObject({ status: "deleted", subWorkspaceId: null, retiredSubWorkspaceId: shell });
    expect(world.projects(shell)).toHaveLength(0);
    expect(world.sim.simulator.store.workspaces.get(shell)).toBeDefined();

    const gateway = world.t.gateway!;
    const observation = await observeUpstream(
      {
        db: world.t.db.db,
        clock: systemClock,
        events: new EventBus(),
        logger: createLogger({ level: "silent" }),
        gateway,
        upstream: gatewayAllocationUpstream(gateway),
      },
      { id: world.orgId, parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID },
      world.token,
    );
    expect(observation.subWorkspaces.find((w) => w.id === shell)).toMatchObject({ state: "parked" });
  });
});
