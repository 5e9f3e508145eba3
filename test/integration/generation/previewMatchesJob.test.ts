import { describe, expect, it } from "vitest";

import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";

/**
 * The preview shows what generation would write (spec/generation.md §8: "users review before they
 * spend their pool"): for the same market and count, the prompts a preview answers are exactly the
 * prompts the generation job then writes — through the real producer, job, runner and simulator,
 * with the counting DRS fake as the generator (it answers what the builtin makes of a request).
 */

let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

describe("a preview and the job that follows it", () => {
  it("the job writes exactly the prompts the preview showed, and the preview wrote nothing", async () => {
    const { brandId } = await world.activeBrand();
    const brandUrl = `${world.brandsUrl()}/${brandId}`;
    await world.sim.clearCalls();
    const preview = await world.call("POST", `${brandUrl}/serenity/markets/2250/fr/prompt-preview`, {});
    expect(preview.status).toBe(200);
    expect(preview.body.generator).toBe("drs");
    expect(preview.body.summary.verdict).toBe("ship");
    const previewed = (preview.body.prompts as { text: string }[]).map((prompt) => prompt.text).sort();
    expect(previewed.length).toBeGreaterThanOrEqual(5);
    expect(world.generatorCalls()).toBe(1);
    // Only the catalogue was read; no job exists for the market yet.
    expect((await world.sim.calls()).map((call) => call.method)).toEqual(["GET"]);
    expect(await world.storedRows()).not.toContain("generate-market-prompts");

    const created = await world.createMarket(brandId, {
      market: "FR",
      languageCode: "fr",
      generatePrompts: true,
    });
    expect(created.status).toBe(201);
    await world.drain();
    const jobId = created.body.promptGeneration.jobId as string;
    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.body).toMatchObject({ status: "COMPLETED", result: { promptCount: previewed.length } });

    const written = await world.call(
      "GET",
      `${brandUrl}/serenity/prompts?geoTargetId=2250&languageCode=fr&includeDrafts=true&limit=200`,
    );
    expect((written.body.items as { text: string }[]).map((item) => item.text).sort()).toEqual(previewed);
    expect(world.generatorCalls()).toBe(2);
  });
});
