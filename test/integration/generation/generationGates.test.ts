import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";

import { findBrandById } from "../../../src/db/brands/findBrandById.ts";
import { findOrgById } from "../../../src/db/orgs/findOrgById.ts";
import { credentials, jobs } from "../../../src/db/schema.ts";
import { generationJobId } from "../../../src/generation/generationJobId.ts";
import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";

/**
 * The gates and the producer (spec/generation.md §2): the flag and `generatePrompts`, readiness
 * (a live generation worker's heartbeat in PostgreSQL and the operator setting), skip rules, and
 * reuse / recycle / replace of the deterministic job id — atomic under concurrent requests.
 */
let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

const FR = { market: "FR", languageCode: "fr" };

interface ActivationBody {
  markets: { promptGeneration: { jobId: string; reused: boolean } }[];
}

async function jobRow(jobId: string) {
  const [row] = await world.t.db.db.select().from(jobs).where(eq(jobs.id, jobId));
  return row;
}

function skipLogged(reason: string): boolean {
  return world.t.logs.lines.some(
    (line) => line.includes('"prompt generation skipped"') && line.includes(`"reason":"${reason}"`),
  );
}

describe("gates", () => {
  it("flag off: the market is created as before, with no promptGeneration field and no job", async () => {
    world.env.SERENITY_ASYNC_PROMPT_GEN = "false";
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, { ...FR, generatePrompts: true });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("promptGeneration");
    expect(await jobRow(generationJobId(brandId, 2250, "fr"))).toBeUndefined();
  });

  it("generatePrompts absent or false: no field", async () => {
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, { ...FR, generatePrompts: false });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("promptGeneration");
  });

  it("the flag is case-insensitive: TRUE opens it", async () => {
    world.env.SERENITY_ASYNC_PROMPT_GEN = "TRUE";
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, { ...FR, generatePrompts: true });
    expect(created.body.promptGeneration.reused).toBe(false);
  });

  it("operator setting generation.consumerReady=false fails closed, logged; true opens again", async () => {
    await world.t.services.generation.settings.set("generation.consumerReady", "false");
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, { ...FR, generatePrompts: true });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("promptGeneration");
    expect(skipLogged("consumer-not-ready")).toBe(true);

    await world.t.services.generation.settings.set("generation.consumerReady", "true");
    const again = await world.createMarket(brandId, {
      market: "DE",
      languageCode: "de",
      generatePrompts: true,
    });
    expect(again.body.promptGeneration).toMatchObject({ status: "provisioning", reused: false });
  });

  it("no generation worker seen within 60 s fails closed; a heartbeat opens the gate", async () => {
    const { brandId } = await world.activeBrand();
    world.clock.advance(61_000);
    const created = await world.createMarket(brandId, { ...FR, generatePrompts: true });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("promptGeneration");
    expect(skipLogged("consumer-not-ready")).toBe(true);

    await world.heartbeat();
    const again = await world.createMarket(brandId, {
      market: "DE",
      languageCode: "de",
      generatePrompts: true,
    });
    expect(again.body.promptGeneration.jobId).toBe(generationJobId(brandId, 2276, "de"));
  });

  it("a catalogue without seeds, or one that fails, skips generation and keeps the market", async () => {
    const { brandId } = await world.activeBrand();
    await world.sim.control("/faults", {
      match: { method: "GET", pathPattern: "/brand-topics$" },
      action: { status: 200, body: [{ volume: 10 }, { topic: "   " }] },
      times: 1,
    });
    const empty = await world.createMarket(brandId, { ...FR, generatePrompts: true });
    expect(empty.status).toBe(201);
    expect(empty.body).not.toHaveProperty("promptGeneration");
    expect(skipLogged("no-seeds")).toBe(true);

    await world.sim.control("/faults", {
      match: { method: "GET", pathPattern: "/brand-topics$" },
      action: { status: 500 },
      times: 1,
    });
    const failed = await world.createMarket(brandId, {
      market: "DE",
      languageCode: "de",
      generatePrompts: true,
    });
    expect(failed.status).toBe(201);
    expect(failed.body).not.toHaveProperty("promptGeneration");
  });

  it("a failing enqueue never fails the market (and leaves no job)", async () => {
    const { brandId } = await world.activeBrand();
    const queue = world.t.services.jobs.queue;
    const enqueue = queue.enqueue;
    queue.enqueue = () => Promise.reject(new Error("queue unavailable (test)"));
    try {
      const created = await world.createMarket(brandId, { ...FR, generatePrompts: true });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty("promptGeneration");
      expect(await jobRow(generationJobId(brandId, 2250, "fr"))).toBeUndefined();
    } finally {
      queue.enqueue = enqueue;
    }
  });
});

describe("create brand and activate answer promptGeneration too", () => {
  it("create brand (sync): the initial market's handle on the Brand", async () => {
    const created = await world.call("POST", world.brandsUrl(), {
      name: "Verdant",
      domain: "verdant.example",
      semrushMarket: { market: "FR", languageCode: "fr", generatePrompts: true },
    });
    expect(created.status).toBe(201);
    expect(created.body.promptGeneration).toEqual({
      jobId: generationJobId(created.body.id, 2250, "fr"),
      status: "provisioning",
      reused: false,
    });
  });

  it("create brand (async): the chained create-market job's result carries the handle", async () => {
    const accepted = await world.call("POST", world.brandsUrl(), {
      name: "Verdant async",
      domain: "verdant.example",
      semrushMarket: { market: "FR", languageCode: "fr", generatePrompts: true },
      async: true,
    });
    expect(accepted.status).toBe(202);
    await world.heartbeat();
    await world.drain();
    const polled = await world.poll(accepted.body.id, accepted.body.jobId);
    expect(polled.body.status).toBe("COMPLETED");
    const handle = (polled.body as { result: { body: { promptGeneration: { jobId: string } } } }).result.body
      .promptGeneration;
    expect(handle.jobId).toBe(generationJobId(accepted.body.id, 2250, "fr"));
    expect((await world.pollGeneration(accepted.body.id, handle.jobId)).body.status).toBe("COMPLETED");
  });

  it("activate (sync): one handle per market", async () => {
    const { brandId } = await world.activeBrand();
    const activated = await world.call("POST", `${world.brandsUrl()}/${brandId}/serenity/activate`, {
      markets: [FR, { market: "DE", languageCode: "de" }],
      generatePrompts: true,
    });
    expect(activated.status).toBe(200);
    expect(
      activated.body.markets.map(
        (market: { promptGeneration: { jobId: string } }) => market.promptGeneration.jobId,
      ),
    ).toEqual([generationJobId(brandId, 2250, "fr"), generationJobId(brandId, 2276, "de")]);
  });
});

describe("reuse, recycle, replace", () => {
  async function produce(brandId: string) {
    const brand = (await findBrandById(world.t.db.db, brandId))!;
    const org = (await findOrgById(world.t.db.db, brand.orgId))!;
    return world.t.services.generation.producer.produce({
      caller: { sub: "user-1", bearer: world.token },
      brand,
      org,
      market: { geoTargetId: 2250, languageCode: "fr", country: "FR" },
      generatePrompts: true,
    });
  }

  it("reuses a running job, a job waiting for reauth; recycles a stale one; replaces a finished one", async () => {
    const { brandId } = await world.activeBrand();
    const first = await world.createMarket(brandId, { ...FR, generatePrompts: true });
    const jobId = first.body.promptGeneration.jobId as string;

    expect(await produce(brandId)).toEqual({ jobId, status: "provisioning", reused: true });

    // Stale: an IN_PROGRESS job untouched for over an hour is recycled (re-armed, old credential invalidated).
    const staleCredential = (await jobRow(jobId))!.credentialId!;
    world.clock.advance(61 * 60_000);
    await world.heartbeat();
    expect(await produce(brandId)).toEqual({ jobId, status: "provisioning", reused: false });
    const [old] = await world.t.db.db.select().from(credentials).where(eq(credentials.id, staleCredential));
    expect(old!.sealed).toBeNull();
    expect((await jobRow(jobId))!.credentialId).not.toBe(staleCredential);

    // FAILED NEEDS_REAUTH is reused as is.
    await world.t.db.db
      .update(jobs)
      .set({ status: "FAILED", error: { code: "NEEDS_REAUTH", message: "x", retryable: false } })
      .where(eq(jobs.id, jobId));
    expect(await produce(brandId)).toEqual({ jobId, status: "provisioning", reused: true });
    expect((await jobRow(jobId))!.status).toBe("FAILED");

    // Any other terminal job is replaced: IN_PROGRESS again under the same id, result cleared.
    await world.t.db.db
      .update(jobs)
      .set({ status: "COMPLETED", error: null, result: { promptCount: 3 } })
      .where(eq(jobs.id, jobId));
    expect(await produce(brandId)).toEqual({ jobId, status: "provisioning", reused: false });
    const replaced = (await jobRow(jobId))!;
    expect(replaced).toMatchObject({ status: "IN_PROGRESS", result: null, attempts: 0 });
  });

  it("ten producers racing on one market create exactly one job and keep one live credential", async () => {
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, FR);
    expect(created.status).toBe(201);
    const jobId = generationJobId(brandId, 2250, "fr");
    const before = (await world.t.db.db.select().from(credentials)).length;
    const handles = await Promise.all(Array.from({ length: 10 }, () => produce(brandId)));
    expect(handles.filter((handle) => handle?.reused === false)).toHaveLength(1);
    expect(handles.every((handle) => handle?.jobId === jobId)).toBe(true);
    expect((await world.t.db.db.select().from(credentials)).length).toBe(before + 1);
  });

  it("two concurrent HTTP requests (activate, real sockets) create exactly one job", async () => {
    const { brandId } = await world.activeBrand();
    expect((await world.createMarket(brandId, FR)).status).toBe(201);
    // Closed with the app at the end of the file.
    const url = await world.t.app.listen({ port: 0, host: "127.0.0.1" });
    {
      const activate = () =>
        fetch(`${url}${world.brandsUrl()}/${brandId}/serenity/activate`, {
          method: "POST",
          headers: { authorization: `Bearer ${world.token}`, "content-type": "application/json" },
          body: JSON.stringify({ markets: [FR], generatePrompts: true }),
        }).then(async (response) => ({
          status: response.status,
          body: (await response.json()) as ActivationBody,
        }));
      const [a, b] = await Promise.all([activate(), activate()]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const handles = [a, b].map((answer) => answer.body.markets[0]!.promptGeneration);
      expect(handles.map((handle) => handle.jobId)).toEqual([
        generationJobId(brandId, 2250, "fr"),
        generationJobId(brandId, 2250, "fr"),
      ]);
      expect(handles.map((handle) => handle.reused).sort()).toEqual([false, true]);
      const rows = await world.t.db.db.select().from(jobs).where(eq(jobs.brandId, brandId));
      expect(rows.filter((row) => row.type === "generate-market-prompts")).toHaveLength(1);
    }
  });
});

describe("the org's generation rate (issue 39, item 6)", () => {
  const counted = async (orgId: string): Promise<number> => {
    const result = await world.t.db.db.execute(
      sql`select coalesce(max(count), 0)::int as n from api_rate_limits where key = ${`generation:${orgId}`}`,
    );
    return Number((result.rows[0] as { n: number }).n);
  };

  it("a generation job counts with the org's previews: not refused itself, it leaves one fewer preview", async () => {
    const { brandId } = await world.activeBrand();
    const before = await counted(world.orgId);
    world.env.SERENITY_GENERATION_RATE_PER_ORG = String(before + 1);
    try {
      const created = await world.createMarket(brandId, { ...FR, generatePrompts: true });
      expect(created.body.promptGeneration).toMatchObject({ reused: false });
      expect(await counted(world.orgId)).toBe(before + 1);
      const preview = await world.call(
        "POST",
        `/v2/orgs/${world.orgId}/brands/${brandId}/serenity/markets/2840/en/prompt-preview`,
        { count: 5 },
      );
      expect([preview.status, preview.body.code]).toEqual([429, "rateLimited"]);
    } finally {
      delete world.env.SERENITY_GENERATION_RATE_PER_ORG;
    }
  });
});
