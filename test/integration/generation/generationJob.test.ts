import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";

import { jobs } from "../../../src/db/schema.ts";
import { generationJobId } from "../../../src/generation/generationJobId.ts";
import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";

/**
 * The generation job end to end (spec/generation.md §3): a market created with
 * `generatePrompts: true` gets a job; the real runner generates (the counting fake DRS), writes
 * through the real gateway client to the simulator and publishes; the poll shows the result.
 */
let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

async function frenchMarket(brandId: string) {
  const created = await world.createMarket(brandId, {
    market: "FR",
    languageCode: "fr",
    generatePrompts: true,
  });
  expect(created.status).toBe(201);
  return created.body as { market: { projectId: string }; promptGeneration?: { jobId: string } };
}

describe("the generation job", () => {
  it("writes, tags and publishes the generated prompts; the poll shows the result", async () => {
    const { brandId } = await world.activeBrand();
    const created = await frenchMarket(brandId);
    expect(created.promptGeneration).toEqual({
      jobId: generationJobId(brandId, 2250, "fr"),
      status: "provisioning",
      reused: false,
    });
    const jobId = created.promptGeneration!.jobId;
    expect((await world.pollGeneration(brandId, jobId)).body.status).toBe("IN_PROGRESS");

    await world.drain();

    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.status).toBe(200);
    expect(polled.body).toEqual({
      id: jobId,
      type: "generateSemrushMarket",
      jobId,
      jobType: "generateSemrushMarket",
      status: "COMPLETED",
      result: {
        promptCount: expect.any(Number),
        projectId: created.market.projectId,
        published: true,
        verdict: "ship",
      },
      error: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const promptCount = polled.body.result.promptCount as number;
    expect(promptCount).toBeGreaterThanOrEqual(5);
    expect(world.generatorCalls()).toBe(1);

    const listed = await world.call(
      "GET",
      `${world.brandsUrl()}/${brandId}/serenity/prompts?geoTargetId=2250&languageCode=fr&limit=200`,
    );
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(promptCount);
    for (const item of listed.body.items as {
      isDraft: boolean;
      tags: { dimension: string; name: string }[];
    }[]) {
      expect(item.isDraft).toBe(false);
      const tags = item.tags.map((tag) => `${tag.dimension}=${tag.name}`);
      expect(tags).toEqual(expect.arrayContaining(["source=semrush", "origin=ai"]));
      expect(tags.filter((tag) => tag === "type=branded" || tag === "type=non-branded")).toHaveLength(1);
      expect(tags.some((tag) => tag.startsWith("category="))).toBe(true);
    }
    const dump = await world.sim.dump();
    const project = dump.projects.find((entry) => entry.id === created.market.projectId)!;
    expect(project.prompts).toHaveLength(promptCount);
    expect(project.prompts.every((prompt) => prompt.live && prompt.metadata.created_by === "user-1")).toBe(
      true,
    );
  });

  it("a redelivery after the generation checkpoint resumes from it: the generator is not called", async () => {
    const { brandId } = await world.activeBrand();
    const created = await frenchMarket(brandId);
    const jobId = created.promptGeneration!.jobId;
    // As a delivery that died right after its checkpoint would have left the record.
    const saved = [
      { prompt: "Quelle crème hydratante choisir pour une peau sèche en hiver ?", category: "solution" },
      { prompt: "Lumiere ou Nivea : quelle crème pour les peaux sensibles ?", category: "comparative" },
    ];
    await world.t.db.db
      .update(jobs)
      .set({
        metadata: { ...(await world.job(jobId)).metadata, generatedBatch: { prompts: saved } },
        attempts: 1,
      })
      .where(eq(jobs.id, jobId));
    await world.drain();
    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.body).toMatchObject({ status: "COMPLETED", result: { promptCount: 2 } });
    expect(world.generatorCalls()).toBe(0);
  });

  it("activate (async) with generatePrompts: the chained job's result names a handle per market", async () => {
    const { brandId } = await world.activeBrand();
    const accepted = await world.call("POST", `${world.brandsUrl()}/${brandId}/serenity/activate`, {
      markets: [{ market: "FR", languageCode: "fr" }],
      generatePrompts: true,
      async: true,
    });
    expect(accepted.status).toBe(202);
    await world.heartbeat();
    await world.drain();
    const polled = await world.poll(brandId, accepted.body.jobId);
    expect(polled.body.status).toBe("COMPLETED");
    const [market] = (
      polled.body as { result: { body: { markets: { promptGeneration: { jobId: string } }[] } } }
    ).result.body.markets;
    expect(market!.promptGeneration.jobId).toBe(generationJobId(brandId, 2250, "fr"));
    expect((await world.pollGeneration(brandId, market!.promptGeneration.jobId)).body.status).toBe(
      "COMPLETED",
    );
  });

  it("makes the upstream calls of §9: one read, one create per tag set, one publish", async () => {
    const { brandId } = await world.activeBrand();
    const created = await frenchMarket(brandId);
    await world.sim.clearCalls();
    await world.drain();
    const calls = (await world.sim.calls()).map((call) => `${call.method} ${call.path}`);
    expect(calls.filter((call) => call.endsWith("/aio/prompts/by_tags"))).toHaveLength(1);
    expect(calls.filter((call) => call.endsWith("/publish"))).toHaveLength(1);
    const creates = calls.filter((call) => call.startsWith("POST") && call.endsWith("/aio/prompts"));
    expect(creates.length).toBeGreaterThanOrEqual(1);
    expect(creates.length).toBeLessThanOrEqual(2 * 5); // type × category tag sets
    expect((await world.pollGeneration(brandId, created.promptGeneration!.jobId)).body.status).toBe(
      "COMPLETED",
    );
  });
});
