import { describe, expect, it } from "vitest";

import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";

/**
 * "Never in job metadata, results, DTOs, logs or metrics" (spec/generation.md §6): after a
 * generation that completes and one that needs and gets a reauth, the user's token appears in no
 * row of jobs or credentials (the sealed column excepted), no response of the suite, no captured
 * log line (API and worker), no request a generator received, and not on /metrics.
 */
let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

function expectAbsent(text: string, token: string, where: string) {
  const [, payload, signature] = token.split(".");
  for (const secret of [token, payload!, signature!]) {
    expect(text.includes(secret), `${where} holds the token`).toBe(false);
  }
}

describe("the user's token", () => {
  it("never lands in rows, responses, logs, generator requests or metrics", async () => {
    const { brandId } = await world.activeBrand();
    const first = await world.createMarket(brandId, {
      market: "FR",
      languageCode: "fr",
      generatePrompts: true,
    });
    await world.drain();
    const second = await world.createMarket(brandId, {
      market: "DE",
      languageCode: "de",
      generatePrompts: true,
    });
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/aio/prompts$" },
      action: { status: 401 },
    });
    await world.drain();
    await world.sim.control("/faults", undefined, "DELETE");
    const secondJob = second.body.promptGeneration.jobId as string;
    expect((await world.pollGeneration(brandId, secondJob)).body.error.code).toBe("NEEDS_REAUTH");
    expect((await world.reauth(brandId, secondJob)).status).toBe(202);
    await world.drain();
    for (const jobId of [first.body.promptGeneration.jobId, secondJob]) {
      expect((await world.pollGeneration(brandId, jobId)).body.status).toBe("COMPLETED");
    }

    const metrics = await world.t.app.inject({ method: "GET", url: "/metrics" });
    expect(world.t.logs.lines.length).toBeGreaterThan(0);
    expectAbsent(await world.storedRows(), world.token, "a database row");
    expectAbsent(world.responses.join("\n"), world.token, "a response");
    expectAbsent(world.t.logs.lines.join("\n"), world.token, "a log line");
    expectAbsent(JSON.stringify(world.drs.received), world.token, "a generator request");
    expectAbsent(metrics.body, world.token, "/metrics");
  });
});
