import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { MAX_POLL_HOPS } from "../../../src/jobs/jobService.ts";
import type { JobWorker } from "../../../src/jobs/worker.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestApp, type TestApp, workerOf } from "../../support/testApp.ts";

/**
 * The chain-following poll past the 10-link walk (ADR 0007): a provisioning-family job that
 * requeues itself 25 times and then chains a follow-up. A client polling the FIRST id must read
 * IN_PROGRESS until the follow-up finishes, then the follow-up's result — never a premature
 * COMPLETED from a hand-off, and never IN_PROGRESS forever because the walk hit its bound.
 */
const REQUEUES = 25;

let t: TestApp;
let worker: JobWorker;
let admin: string;
let orgId: string;
let brandId: string;
let otherBrandId: string;
let releaseFollowUp = false;

beforeAll(async () => {
  t = await createTestApp();
  t.services.jobs.registry
    .registerHandler(
      defineJobHandler({
        type: "test-requeuing",
        publicType: "testRequeuing",
        family: "provisioning",
        timeoutMs: 5_000,
        leaseTtlMs: 10_000,
        maxAttempts: 1,
        async handle(ctx) {
          const hop = Number(ctx.metadata.hop ?? 1);
          if (hop <= REQUEUES) return ctx.requeue({ delayMs: 0, metadata: { hop: hop + 1 } });
          return ctx.chain({ type: "test-follow-up", metadata: {} });
        },
      }),
    )
    .registerHandler(
      defineJobHandler({
        type: "test-follow-up",
        publicType: "testFollowUp",
        family: "provisioning",
        timeoutMs: 5_000,
        leaseTtlMs: 10_000,
        maxAttempts: 10,
        retryDelayMs: () => 0,
        async handle() {
          if (!releaseFollowUp) throw Object.assign(new Error("not yet"), { retryable: true });
          return { status: 201, body: { done: true } };
        },
      }),
    );
  worker = workerOf(t, createLogger({ level: "silent" }));
  admin = await t.token({ sub: "admin-1", admin: true });
  const post = async (url: string, payload: object) =>
    (
      await t.app.inject({ method: "POST", url, headers: { authorization: `Bearer ${admin}` }, payload })
    ).json().id as string;
  orgId = await post("/v2/orgs", { name: "Acme" });
  brandId = await post(`/v2/orgs/${orgId}/brands`, { name: "Acme Shoes" });
  otherBrandId = await post(`/v2/orgs/${orgId}/brands`, { name: "Acme Hats" });
});

afterAll(async () => {
  await worker.stop();
  await t.close();
});

async function poll(jobId: string, brand = brandId) {
  const response = await t.app.inject({
    method: "GET",
    url: `/v2/orgs/${orgId}/brands/${brand}/serenity/jobs/${jobId}`,
    headers: { authorization: `Bearer ${admin}` },
  });
  return { status: response.statusCode, body: response.json() };
}

describe("polling a lineage longer than the walk", () => {
  it("reads IN_PROGRESS through 25 requeues, then the chained job's result under the first id", async () => {
    const { jobId } = await t.services.jobs.submit({
      type: "test-requeuing",
      orgId,
      brandId,
      metadata: { hop: 1 },
      createdBy: "admin-1",
    });
    const seen: string[] = [];
    // One delivery at a time: the lineage grows by one record per round, the poll follows it.
    for (let round = 0; round < REQUEUES + 3; round++) {
      await worker.pollOnce();
      const { body } = await poll(jobId);
      expect(body.jobId).toBe(jobId);
      expect(body.jobType).toBe("testRequeuing");
      seen.push(body.status);
    }
    expect(new Set(seen)).toEqual(new Set(["IN_PROGRESS"]));
    // The walk alone would stop after MAX_POLL_HOPS links: the lineage really is longer.
    const lineage = await t.db.pool.query("select count(*)::int as n from jobs where root_job_id = $1", [
      jobId,
    ]);
    expect(lineage.rows[0].n).toBe(REQUEUES + 1);
    expect(REQUEUES).toBeGreaterThan(MAX_POLL_HOPS);

    releaseFollowUp = true;
    await worker.drain();
    const { body } = await poll(jobId);
    expect(body).toMatchObject({
      jobId,
      jobType: "testRequeuing",
      status: "COMPLETED",
      result: { status: 201, body: { done: true } },
      error: null,
    });
    // Any hop of the lineage reports the same end.
    const middle = await t.db.pool.query(
      "select id from jobs where root_job_id = $1 and type = 'test-requeuing' order by created_at, id limit 1 offset 12",
      [jobId],
    );
    expect((await poll(middle.rows[0].id)).body).toMatchObject({
      status: "COMPLETED",
      result: { body: { done: true } },
    });
  });

  it("the jump to the lineage's tail re-checks ownership: a tail of another brand is not reported", async () => {
    releaseFollowUp = true;
    const { jobId } = await t.services.jobs.submit({
      type: "test-requeuing",
      orgId,
      brandId,
      metadata: { hop: REQUEUES - 12 },
      createdBy: "admin-1",
    });
    await worker.drain();
    expect((await poll(jobId)).body).toMatchObject({ status: "COMPLETED" });
    // Re-home the tail to another brand (as a corrupted or foreign record would be).
    await t.db.pool.query("update jobs set brand_id = $2 where root_job_id = $1 and next_job_id is null", [
      jobId,
      otherBrandId,
    ]);
    expect((await poll(jobId)).body).toMatchObject({ status: "IN_PROGRESS", result: null });
    // And the foreign brand cannot read the first id at all.
    expect((await poll(jobId, otherBrandId)).status).toBe(404);
  });
});
