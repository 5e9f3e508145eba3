import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";

import { credentials } from "../../../src/db/schema.ts";
import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";

/**
 * Poll and re-authentication of generation jobs (spec/generation.md §5): an upstream 401/403 on
 * the prompt writes fails the job NEEDS_REAUTH; only its own user may resume it, only from that
 * state; the new credential is sealed first and the loser of two concurrent reauths gets 409 with
 * its sealed credential deleted; the same job id resumes from its checkpoints without a second
 * generation (the fake DRS counts).
 */
let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

async function generationNeedingReauth(status: 401 | 403) {
  const { brandId } = await world.activeBrand();
  const created = await world.createMarket(brandId, {
    market: "FR",
    languageCode: "fr",
    generatePrompts: true,
  });
  const jobId = created.body.promptGeneration.jobId as string;
  await world.sim.control("/faults", {
    match: { method: "POST", pathPattern: "/aio/prompts$" },
    action: { status },
  });
  await world.drain();
  await world.sim.control("/faults", undefined, "DELETE");
  return { brandId, jobId };
}

async function liveCredentials(): Promise<number> {
  const rows = await world.t.db.db.select({ sealed: credentials.sealed }).from(credentials);
  return rows.filter((row) => row.sealed !== null).length;
}

describe("NEEDS_REAUTH and reauth", () => {
  it.each([401, 403] as const)("an upstream %s on the writes fails the job NEEDS_REAUTH", async (status) => {
    const { brandId, jobId } = await generationNeedingReauth(status);
    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.body).toMatchObject({
      status: "FAILED",
      error: { code: "NEEDS_REAUTH", needsReauth: true, retryable: false },
    });
    expect(world.generatorCalls()).toBe(1);
  });

  it("exchanges the credential only after generating: an invalidated one still generates, then asks for a reauth", async () => {
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, {
      market: "FR",
      languageCode: "fr",
      generatePrompts: true,
    });
    const jobId = created.body.promptGeneration.jobId as string;
    await world.t.services.jobs.credentials.invalidate((await world.job(jobId)).credentialId!);
    await world.drain();
    expect((await world.pollGeneration(brandId, jobId)).body.error).toMatchObject({ code: "NEEDS_REAUTH" });
    expect(world.generatorCalls()).toBe(1);
    expect((await world.job(jobId)).metadata).toHaveProperty("generatedBatch");
    expect((await world.reauth(brandId, jobId)).status).toBe(202);
    await world.drain();
    expect((await world.pollGeneration(brandId, jobId)).body.status).toBe("COMPLETED");
    expect(world.generatorCalls()).toBe(1);
  });

  it("resumes the same job from its checkpoints: no second generation", async () => {
    const { brandId, jobId } = await generationNeedingReauth(401);
    const resumed = await world.reauth(brandId, jobId);
    expect(resumed.status).toBe(202);
    expect(resumed.body).toMatchObject({ jobId, jobType: "generateSemrushMarket", status: "IN_PROGRESS" });
    expect(resumed.body.job).toEqual({
      id: jobId,
      type: "generateSemrushMarket",
      status: "IN_PROGRESS",
      location: expect.stringMatching(
        new RegExp(`/brands/${brandId}/serenity/markets/generation/jobs/${jobId}$`),
      ),
    });
    await world.drain();
    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.body).toMatchObject({ status: "COMPLETED", result: { published: true, verdict: "ship" } });
    expect(world.generatorCalls()).toBe(1);
  });

  it("only the user who started it (403), only from FAILED + NEEDS_REAUTH (409)", async () => {
    const { brandId, jobId } = await generationNeedingReauth(401);
    const other = await world.t.token({ sub: "user-2", orgs: [world.orgId] });
    const refused = await world.reauth(brandId, jobId, other);
    expect(refused.status).toBe(403);
    expect((await world.job(jobId)).status).toBe("FAILED");

    expect((await world.reauth(brandId, jobId)).status).toBe(202);
    const again = await world.reauth(brandId, jobId);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("invalidState");
  });

  it("two concurrent reauths: one 202, one 409, and the loser's sealed credential is deleted", async () => {
    const { brandId, jobId } = await generationNeedingReauth(401);
    const before = await liveCredentials();
    const [a, b] = await Promise.all([world.reauth(brandId, jobId), world.reauth(brandId, jobId)]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    expect(await liveCredentials()).toBe(before + 1);
    const job = await world.job(jobId);
    const [attached] = await world.t.db.db
      .select()
      .from(credentials)
      .where(eq(credentials.id, job.credentialId!));
    expect(attached!.sealed).not.toBeNull();
  });
});

describe("the generation poll", () => {
  it("answers 404 for a job of another type, of another brand, or unknown", async () => {
    const { brandId } = await world.activeBrand();
    const other = await world.activeBrand();
    const accepted = await world.createMarket(brandId, { market: "DE", languageCode: "de", async: true });
    expect(accepted.status).toBe(202);
    expect((await world.pollGeneration(brandId, accepted.body.jobId)).status).toBe(404);

    const created = await world.createMarket(brandId, {
      market: "FR",
      languageCode: "fr",
      generatePrompts: true,
    });
    const jobId = created.body.promptGeneration.jobId;
    expect((await world.pollGeneration(other.brandId, jobId)).status).toBe(404);
    expect((await world.pollGeneration(brandId, "00000000-0000-4000-8000-000000000000")).status).toBe(404);
    const outsider = await world.t.token({ sub: "user-9", orgs: [] });
    expect((await world.pollGeneration(brandId, jobId, outsider)).status).toBe(404);
    expect((await world.pollGeneration(brandId, jobId)).status).toBe(200);
  });

  it("the DTO is an allowlist: no metadata, checkpoints or credential ids", async () => {
    const { brandId } = await world.activeBrand();
    const created = await world.createMarket(brandId, {
      market: "FR",
      languageCode: "fr",
      generatePrompts: true,
    });
    const jobId = created.body.promptGeneration.jobId;
    await world.drain();
    const polled = await world.pollGeneration(brandId, jobId);
    expect(Object.keys(polled.body).sort()).toEqual(
      ["createdAt", "error", "id", "jobId", "jobType", "result", "status", "type", "updatedAt"].sort(),
    );
    expect(Object.keys(polled.body.result).sort()).toEqual([
      "projectId",
      "promptCount",
      "published",
      "verdict",
    ]);
    const job = await world.job(jobId);
    expect(polled.raw).not.toContain(job.credentialId!);
    expect(polled.raw).not.toContain("generatedBatch");
  });
});
