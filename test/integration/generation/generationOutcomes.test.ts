import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";

import { credentials } from "../../../src/db/schema.ts";
import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";

/**
 * How a generation job ends (spec/generation.md §3): each terminal code, the retryable paths
 * (redelivered with backoff, bounded) and the rule that the generator is called at most once per
 * job once it shipped — counted as requests the fake DRS received.
 */
let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

function summary(verdict: string, errorCategory: string | null, count: number) {
  return {
    generated: count,
    hard_validated: count,
    guardrail_dropped: 0,
    language_rejected: 0,
    quality_downranked: 0,
    final_count: count,
    verdict,
    error_category: errorCategory,
    reason: `test-${verdict}`,
  };
}

const answers = {
  held: { status: 200, body: { prompts: [], language_evidence: [], ship_summary: summary("held", null, 0) } },
  gateError: {
    status: 200,
    body: { prompts: [], language_evidence: [], ship_summary: summary("gate_error", "terminal", 0) },
  },
  empty: {
    status: 200,
    body: { prompts: [], language_evidence: [], ship_summary: summary("ship", null, 0) },
  },
  unparseable: { status: 200, body: "this is not json", contentType: "text/plain" },
  unavailable: { status: 503, body: { error: "busy" } },
} as const;

async function startGeneration(): Promise<{ brandId: string; jobId: string; projectId: string }> {
  const { brandId } = await world.activeBrand();
  const created = await world.createMarket(brandId, {
    market: "FR",
    languageCode: "fr",
    generatePrompts: true,
  });
  expect(created.status).toBe(201);
  return { brandId, jobId: created.body.promptGeneration.jobId, projectId: created.body.market.projectId };
}

async function credentialOf(jobId: string) {
  const job = await world.job(jobId);
  const [row] = await world.t.db.db.select().from(credentials).where(eq(credentials.id, job.credentialId!));
  return row!;
}

async function creates(): Promise<number> {
  return (await world.sim.calls()).filter(
    (call) => call.method === "POST" && call.path.endsWith("/aio/prompts"),
  ).length;
}

describe("terminal outcomes", () => {
  it.each([
    ["PROMPT_GENERATION_HELD", (): void => void world.drsScript.push(() => answers.held)],
    ["PROMPT_GENERATION_GATE_ERROR", (): void => void world.drsScript.push(() => answers.gateError)],
    ["PROMPT_GENERATION_EMPTY", (): void => void world.drsScript.push(() => answers.empty)],
    ["GENERATION_TERMINAL", (): void => void world.drsScript.push(() => answers.unparseable)],
    ["GENERATION_TERMINAL", (): void => void (world.env.SERENITY_DRS_URL = undefined)],
  ] as const)("%s: FAILED, nothing written, the credential invalidated", async (code, arrange) => {
    arrange();
    const { brandId, jobId } = await startGeneration();
    await world.drain();
    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.body).toMatchObject({
      status: "FAILED",
      result: null,
      error: { code, retryable: false, needsReauth: false },
    });
    expect(polled.body.error.message).not.toMatch(/json|test-|busy/i);
    expect(await creates()).toBe(0);
    expect((await credentialOf(jobId)).sealed).toBeNull();
    expect((await world.job(jobId)).attempts).toBe(1);
  });
});

describe("retryable paths", () => {
  it("a generator 503 is redelivered after a backoff, then ships", async () => {
    world.drsScript.push(() => answers.unavailable);
    const { brandId, jobId } = await startGeneration();
    expect(await world.pollOnce()).toBe(1);
    expect((await world.job(jobId)).status).toBe("IN_PROGRESS");
    const [delay] = await world.pendingDelays(jobId);
    expect(delay).toBeGreaterThanOrEqual(900);
    // Not due yet: nothing is delivered until the backoff has passed.
    expect(await world.pollOnce()).toBe(0);
    await world.drain();
    expect((await world.pollGeneration(brandId, jobId)).body.status).toBe("COMPLETED");
    expect(world.generatorCalls()).toBe(2);
  });

  it("retries are bounded: five deliveries, then FAILED JOB_FAILED with retryable as a hint", async () => {
    for (let i = 0; i < 10; i++) world.drsScript.push(() => answers.unavailable);
    const { brandId, jobId } = await startGeneration();
    await world.drain();
    const polled = await world.pollGeneration(brandId, jobId);
    expect(polled.body).toMatchObject({ status: "FAILED", error: { code: "JOB_FAILED", retryable: true } });
    expect(world.generatorCalls()).toBe(5);
  });

  it("a transient write error is retried from the checkpoint: no second generation", async () => {
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/aio/prompts$" },
      action: { status: 503 },
      times: 1,
    });
    const { brandId, jobId } = await startGeneration();
    await world.drain();
    expect((await world.pollGeneration(brandId, jobId)).body.status).toBe("COMPLETED");
    expect(world.generatorCalls()).toBe(1);
    expect((await world.job(jobId)).attempts).toBe(2);
  });

  it("a failed publish is retried alone: the retry skips the reads and creates", async () => {
    const { brandId, jobId } = await startGeneration();
    // After the market's own publish: only the job's publish fails.
    await world.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/publish$" },
      action: { status: 503 },
      times: 1,
    });
    await world.pollOnce();
    expect((await world.job(jobId)).metadata).toMatchObject({ promptsWritten: true });
    expect((await world.job(jobId)).metadata).not.toHaveProperty("published");
    await world.sim.clearCalls();
    await world.drain();
    expect((await world.pollGeneration(brandId, jobId)).body.status).toBe("COMPLETED");
    const calls = (await world.sim.calls()).map((call) => call.path);
    expect(calls.filter((path) => path.endsWith("/publish"))).toHaveLength(1);
    expect(calls.filter((path) => path.includes("/aio/prompts"))).toHaveLength(0);
    expect(world.generatorCalls()).toBe(1);
  });
});
