import { randomUUID } from "node:crypto";

import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { jobs } from "../../../src/db/schema.ts";
import { systemClock } from "../../../src/domain/clock.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobError } from "../../../src/jobs/jobError.ts";
import { JobWorker } from "../../../src/jobs/worker.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * `GET /v2/orgs/:orgId/serenity/jobs` and `…/jobs/:jobId/timeline`, over lineages the real runner
 * built: a provisioning-family job that requeues twice and then chains to a finishing job.
 */

let t: TestApp;
let worker: JobWorker;
let admin: string;
let orgId: string;
let otherOrgId: string;
let brandId: string;
let otherBrandId: string;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await createTestApp();
  const limits = { timeoutMs: 1_000, leaseTtlMs: 2_000, maxAttempts: 1 };
  t.services.jobs.registry
    .registerHandler(
      defineJobHandler({
        type: "test-settle",
        publicType: "testSettle",
        family: "provisioning",
        ...limits,
        async handle(ctx) {
          const hop = Number(ctx.metadata.hop ?? 0);
          if (hop < 2) return ctx.requeue({ delayMs: 0, metadata: { ...ctx.metadata, hop: hop + 1 } });
          return ctx.chain({ type: "test-finish", metadata: { fail: ctx.metadata.fail === true } });
        },
      }),
    )
    .registerHandler(
      defineJobHandler({
        type: "test-finish",
        publicType: "testFinish",
        family: "provisioning",
        ...limits,
        errorMessages: { TEST_BROKEN: "The test job broke on purpose." },
        async handle(ctx) {
          if (ctx.metadata.fail) throw new JobError("TEST_BROKEN");
          return { done: true };
        },
      }),
    )
    .registerHandler(
      defineJobHandler({
        type: "test-solo",
        publicType: "testSolo",
        ...limits,
        async handle() {
          return { solo: true };
        },
      }),
    );
  const services = t.services.jobs;
  worker = new JobWorker(
    {
      db: t.db.db,
      clock: systemClock,
      logger: createLogger({ level: "silent" }),
      events: t.events,
      registry: services.registry,
      queue: services.queue,
      credentials: services.credentials,
    },
    { listen: false, reconcileIntervalMs: 0 },
  );
  admin = await t.token({ sub: "admin-1", admin: true });
  const post = async (url: string, payload: Record<string, unknown>) =>
    (await t.app.inject({ method: "POST", url, headers: auth(admin), payload })).json().id as string;
  orgId = await post("/v2/orgs", { name: "Jobs org" });
  otherOrgId = await post("/v2/orgs", { name: "Other org" });
  brandId = await post(`/v2/orgs/${orgId}/brands`, { name: "Brand A" });
  otherBrandId = await post(`/v2/orgs/${orgId}/brands`, { name: "Brand B" });
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});

const submit = (type: string, metadata: Record<string, unknown> = {}, brand: string | null = brandId) =>
  t.services.jobs.submit({
    type,
    orgId,
    brandId: brand,
    metadata: { ...metadata, secret: "internal-only" },
    createdBy: "u",
  });
const list = (query = "", token = admin, org = orgId) =>
  t.app.inject({ method: "GET", url: `/v2/orgs/${org}/serenity/jobs${query}`, headers: auth(token) });
const timeline = (jobId: string, token = admin, org = orgId) =>
  t.app.inject({
    method: "GET",
    url: `/v2/orgs/${org}/serenity/jobs/${jobId}/timeline`,
    headers: auth(token),
  });
const poll = (jobId: string, brand = brandId) =>
  t.app.inject({
    method: "GET",
    url: `/v2/orgs/${orgId}/brands/${brand}/serenity/jobs/${jobId}`,
    headers: auth(admin),
  });

describe("the org job list", () => {
  it("shows one item per job, with the status its poll reports while the lineage is under way and after", async () => {
    const { jobId } = await submit("test-settle");
    await worker.pollOnce(); // the first hop requeues: its record is COMPLETED, the job is not
    const midway = (await list()).json().items.find((item: { jobId: string }) => item.jobId === jobId);
    expect(midway).toMatchObject({ status: "IN_PROGRESS", hops: 2, stuck: false });
    expect(midway.status).toBe((await poll(jobId)).json().status);

    await worker.drain();
    const response = await list();
    expect(response.statusCode).toBe(200);
    const items = response.json().items as Record<string, unknown>[];
    expect(items.filter((item) => item.jobId === jobId)).toHaveLength(1);
    const item = items.find((candidate) => candidate.jobId === jobId)!;
    expect(Object.keys(item).sort()).toEqual(
      [
        "brandId",
        "createdAt",
        "error",
        "hops",
        "id",
        "jobId",
        "jobType",
        "market",
        "status",
        "stuck",
        "type",
        "updatedAt",
      ].sort(),
    );
    expect(item).toMatchObject({
      id: jobId,
      type: "testSettle",
      jobType: "testSettle",
      brandId,
      status: "COMPLETED",
      error: null,
      hops: 4,
    });
    expect(item.status).toBe((await poll(jobId)).json().status);
    expect(response.body).not.toContain("internal-only");
  });

  it("filters by status, public type and brand, on what the poll reports", async () => {
    const failing = (await submit("test-settle", { fail: true })).jobId;
    const solo = (await submit("test-solo", {}, otherBrandId)).jobId;
    await worker.drain();

    const failed = (await list("?status=FAILED")).json().items;
    expect(failed.map((item: { jobId: string }) => item.jobId)).toEqual([failing]);
    expect(failed[0].error).toEqual({
      code: "TEST_BROKEN",
      message: "The test job broke on purpose.",
      retryable: false,
      needsReauth: false,
    });
    expect((await poll(failing)).json().status).toBe("FAILED");

    const ofType = (await list("?type=testSolo")).json().items;
    expect(ofType.map((item: { jobId: string }) => item.jobId)).toEqual([solo]);
    const ofBrand = (await list(`?brandId=${otherBrandId}`)).json().items;
    expect(ofBrand.map((item: { jobId: string }) => item.jobId)).toEqual([solo]);
    expect((await list("?type=noSuchType")).json().items).toEqual([]);
    const completedSettles = (await list("?status=COMPLETED&type=testSettle")).json().items;
    expect(completedSettles.every((item: { status: string }) => item.status === "COMPLETED")).toBe(true);
    expect(completedSettles.some((item: { jobId: string }) => item.jobId === failing)).toBe(false);
  });

  it("names the market a job's metadata works on, and only a well-formed one", async () => {
    const market = (await submit("test-solo", { geoTargetId: 2250, languageCode: "FR" })).jobId;
    const junk = (await submit("test-solo", { geoTargetId: "2250; drop", languageCode: "<b>fr</b>" })).jobId;
    const none = (await submit("test-solo")).jobId;
    await worker.drain();
    const items = (await list("?type=testSolo&limit=200")).json().items as {
      jobId: string;
      market: unknown;
    }[];
    const marketOf = (id: string) => items.find((item) => item.jobId === id)?.market;
    expect(marketOf(market)).toEqual({ geoTargetId: 2250, languageCode: "fr" });
    expect(marketOf(junk)).toBeNull();
    expect(marketOf(none)).toBeNull();
    expect((await timeline(market)).json().job.market).toEqual({ geoTargetId: 2250, languageCode: "fr" });
  });

  it("pages newest first with a cursor, without gaps or repeats", async () => {
    const all = (await list("?limit=200")).json().items.map((item: { jobId: string }) => item.jobId);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const page = (await list(query)).json();
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item: { jobId: string }) => item.jobId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    const created = (await list("?limit=200"))
      .json()
      .items.map((item: { createdAt: string }) => item.createdAt);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it("flags a job nothing has touched for the stall grace as stuck", async () => {
    const id = randomUUID();
    await insertJob(t.db.db, {
      id,
      type: "test-solo",
      orgId,
      brandId,
      metadata: {},
      credentialId: null,
      createdBy: "u",
      now: new Date(Date.now() - 10 * 60 * 1000),
    });
    const fresh = (await submit("test-solo")).jobId;
    const items = (await list("?status=IN_PROGRESS")).json().items as { jobId: string; stuck: boolean }[];
    expect(items.find((item) => item.jobId === id)?.stuck).toBe(true);
    expect(items.find((item) => item.jobId === fresh)?.stuck).toBe(false);
    await t.db.db.update(jobs).set({ status: "FAILED" }).where(eq(jobs.id, id));
    await worker.drain();
  });

  it("rejects malformed filters and cursors with 400", async () => {
    const forged = Buffer.from(JSON.stringify(["yesterday", "x"])).toString("base64url");
    for (const query of [
      "?status=DONE",
      "?limit=0",
      "?limit=201",
      "?cursor=%%%",
      `?cursor=${forged}`,
      "?type=a b",
      "?x=1",
    ]) {
      const response = await list(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error).toBe("invalidRequest");
    }
  });
});

describe("a job's timeline", () => {
  it("shows every hop: how it came to be, when, and its outcome", async () => {
    const { jobId } = await submit("test-settle", { fail: true });
    await worker.drain();
    const response = await timeline(jobId);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.job).toMatchObject({ jobId, status: "FAILED", hops: 4 });
    expect(body.truncated).toBe(false);
    expect(
      body.hops.map((hop: { via: string; jobType: string; status: string }) => [
        hop.via,
        hop.jobType,
        hop.status,
      ]),
    ).toEqual([
      ["start", "testSettle", "COMPLETED"],
      ["requeue", "testSettle", "COMPLETED"],
      ["requeue", "testSettle", "COMPLETED"],
      ["chain", "testFinish", "FAILED"],
    ]);
    expect(body.hops[0].jobId).toBe(jobId);
    expect(body.hops[3].error.code).toBe("TEST_BROKEN");
    expect(response.body).not.toContain("internal-only");
    // Any hop's id leads to the same timeline.
    const viaHop = (await timeline(body.hops[2].jobId)).json();
    expect(viaHop).toEqual(body);
  });

  it("is 404 for another org's job, an inaccessible org or an unknown id; 400 for a bad id", async () => {
    const { jobId } = await submit("test-solo");
    const foreign = randomUUID();
    await insertJob(t.db.db, {
      id: foreign,
      type: "test-solo",
      orgId: otherOrgId,
      brandId: null,
      metadata: {},
      credentialId: null,
      createdBy: "u",
      now: new Date(),
    });
    expect((await timeline(foreign)).statusCode).toBe(404);
    expect((await timeline(randomUUID())).statusCode).toBe(404);
    const outsider = await t.token({ sub: "outsider", orgs: [otherOrgId] });
    expect((await timeline(jobId, outsider)).statusCode).toBe(404);
    expect((await list("", outsider)).statusCode).toBe(404);
    expect((await list("", admin, randomUUID())).statusCode).toBe(404);
    // The other org's list does not show this org's jobs, and this org's list not theirs.
    const theirs = (await list("", outsider, otherOrgId))
      .json()
      .items.map((item: { jobId: string }) => item.jobId);
    expect(theirs).toEqual([foreign]);
    expect(
      (await list("?limit=200")).json().items.some((item: { jobId: string }) => item.jobId === foreign),
    ).toBe(false);
    expect((await timeline("not-a-uuid")).statusCode).toBe(400);
    expect((await t.app.inject({ method: "GET", url: `/v2/orgs/${orgId}/serenity/jobs` })).statusCode).toBe(
      401,
    );
    await t.db.db.update(jobs).set({ status: "FAILED" }).where(eq(jobs.id, foreign));
    await worker.drain();
  });
});
