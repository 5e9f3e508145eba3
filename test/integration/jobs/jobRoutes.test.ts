import { randomUUID } from "node:crypto";

import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import type { JobRow } from "../../../src/db/jobs/jobRow.ts";
import { credentials, jobs } from "../../../src/db/schema.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { needsReauth } from "../../../src/jobs/jobError.ts";
import type { JobWorker } from "../../../src/jobs/worker.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestApp, type TestApp, workerOf } from "../../support/testApp.ts";
import { waitFor } from "../../support/wait.ts";

let t: TestApp;
let admin: string;
let orgId: string;
let brandId: string;
let otherBrandId: string;
let otherOrgId: string;
let otherOrgBrandId: string;
let worker: JobWorker;
/** The token the simulated upstream accepts right now (anything else is a 401 → NEEDS_REAUTH). */
let acceptedToken: string | undefined;
const seenTokens: string[] = [];

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await createTestApp();
  t.services.jobs.registry
    .registerHandler(
      defineJobHandler({
        type: "test-provision",
        publicType: "testProvision",
        family: "provisioning",
        timeoutMs: 1_000,
        leaseTtlMs: 2_000,
        maxAttempts: 1,
        async handle() {
          return {};
        },
      }),
    )
    .registerHandler(
      defineJobHandler({
        type: "test-plain",
        publicType: "testPlain",
        timeoutMs: 1_000,
        leaseTtlMs: 2_000,
        maxAttempts: 1,
        async handle() {
          return {};
        },
      }),
    )
    .registerHandler(
      defineJobHandler({
        type: "test-upstream",
        publicType: "testUpstream",
        timeoutMs: 1_000,
        leaseTtlMs: 2_000,
        maxAttempts: 2,
        async handle(ctx) {
          const token = await ctx.credential();
          seenTokens.push(token);
          if (token !== acceptedToken) throw needsReauth();
          await ctx.saveCheckpoint({ wrote: true });
          return { written: true };
        },
      }),
    );
  worker = workerOf(t, createLogger({ level: "debug", destination: t.logs }));
  admin = await t.token({ sub: "admin-1", admin: true });
  const org = async (name: string) =>
    (await t.app.inject({ method: "POST", url: "/v2/orgs", headers: auth(admin), payload: { name } })).json()
      .id as string;
  const brand = async (org: string, name: string) =>
    (
      await t.app.inject({
        method: "POST",
        url: `/v2/orgs/${org}/brands`,
        headers: auth(admin),
        payload: { name },
      })
    ).json().id as string;
  orgId = await org("Acme");
  otherOrgId = await org("Other");
  brandId = await brand(orgId, "Acme Shoes");
  otherBrandId = await brand(orgId, "Acme Hats");
  otherOrgBrandId = await brand(otherOrgId, "Other Brand");
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});

const url = (jobId: string, brand = brandId, org = orgId) =>
  `/v2/orgs/${org}/brands/${brand}/serenity/jobs/${jobId}`;

async function record(
  values: Partial<
    Pick<JobRow, "status" | "result" | "error" | "type" | "brandId" | "orgId" | "createdBy">
  > = {},
): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await insertJob(t.db.db, {
    id,
    type: values.type ?? "test-provision",
    orgId: values.orgId ?? orgId,
    brandId: values.brandId === undefined ? brandId : values.brandId,
    metadata: { secretCheckpoint: "internal-only" },
    credentialId: null,
    createdBy: values.createdBy ?? "user-1",
    now,
  });
  await t.db.db
    .update(jobs)
    .set({
      status: values.status ?? "IN_PROGRESS",
      result: values.result ?? null,
      error: values.error ?? null,
    })
    .where(eq(jobs.id, id));
  return id;
}

/** A chain of `length` hops whose earlier hops are COMPLETED hand-offs; returns the ids, first first. */
async function chainOf(
  length: number,
  last: Partial<Pick<JobRow, "status" | "result" | "error">>,
): Promise<string[]> {
  const ids: string[] = [await record(last)];
  for (let hop = 1; hop < length; hop++) {
    const key = hop % 2 === 0 ? "chainedJobId" : "requeuedJobId";
    ids.unshift(await record({ status: "COMPLETED", result: { [key]: ids[0] } }));
  }
  return ids;
}

async function poll(jobId: string, token = admin, brand = brandId, org = orgId) {
  return t.app.inject({ method: "GET", url: url(jobId, brand, org), headers: auth(token) });
}

describe("GET …/serenity/jobs/:jobId", () => {
  it("returns the allowlisted Job shape (never metadata or credentials)", async () => {
    const id = await record({ type: "test-plain", status: "COMPLETED", result: { ok: 1 } });
    const response = await poll(id);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual([
      "createdAt",
      "error",
      "id",
      "jobId",
      "jobType",
      "result",
      "status",
      "type",
      "updatedAt",
    ]);
    expect(body).toMatchObject({
      id,
      type: "testPlain",
      jobId: id,
      jobType: "testPlain",
      status: "COMPLETED",
      result: { ok: 1 },
      error: null,
    });
    expect(response.body).not.toContain("internal-only");
  });

  it("reports a FAILED job's error with needsReauth", async () => {
    const id = await record({
      type: "test-plain",
      status: "FAILED",
      error: { code: "NEEDS_REAUTH", message: "Sign in again.", retryable: false },
    });
    expect((await poll(id)).json().error).toEqual({
      code: "NEEDS_REAUTH",
      message: "Sign in again.",
      retryable: false,
      needsReauth: true,
    });
  });

  it("404s for a job of another brand, another org, an inaccessible org and an unknown id; 400 for a bad id", async () => {
    const mine = await record({ type: "test-plain" });
    expect((await poll(mine, admin, otherBrandId)).statusCode).toBe(404);
    expect((await poll(mine, admin, otherOrgBrandId, otherOrgId)).statusCode).toBe(404);
    const outsider = await t.token({ sub: "outsider", orgs: [otherOrgId] });
    expect((await poll(mine, outsider)).statusCode).toBe(404);
    expect((await poll(randomUUID())).statusCode).toBe(404);
    const bad = await t.app.inject({ method: "GET", url: url("not-a-uuid"), headers: auth(admin) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe("invalidRequest");
  });

  it("follows provisioning hand-offs and reports the last hop under the requested id", async () => {
    const running = await chainOf(4, { status: "IN_PROGRESS" });
    const body = (await poll(running[0]!)).json();
    expect(body).toMatchObject({
      jobId: running[0],
      jobType: "testProvision",
      status: "IN_PROGRESS",
      result: null,
    });

    const done = await chainOf(5, { status: "COMPLETED", result: { status: 201, body: { final: true } } });
    expect((await poll(done[0]!)).json()).toMatchObject({
      jobId: done[0],
      status: "COMPLETED",
      result: { status: 201, body: { final: true } },
    });

    const failed = await chainOf(3, {
      status: "FAILED",
      error: { code: "PROVISIONING_FAILED", message: "It failed.", retryable: false },
    });
    expect((await poll(failed[0]!)).json()).toMatchObject({
      status: "FAILED",
      error: { code: "PROVISIONING_FAILED" },
    });
  });

  it("does not follow hand-offs of other families", async () => {
    const next = await record({ type: "test-plain" });
    const first = await record({ type: "test-plain", status: "COMPLETED", result: { chainedJobId: next } });
    expect((await poll(first)).json()).toMatchObject({ status: "COMPLETED", result: { chainedJobId: next } });
  });

  it("follows at most 10 hops: a chain still handing off beyond that reads IN_PROGRESS", async () => {
    const exactlyTen = await chainOf(11, { status: "COMPLETED", result: { done: true } });
    expect((await poll(exactlyTen[0]!)).json()).toMatchObject({
      status: "COMPLETED",
      result: { done: true },
    });
    const longer = await chainOf(12, { status: "COMPLETED", result: { done: true } });
    expect((await poll(longer[0]!)).json()).toMatchObject({
      status: "IN_PROGRESS",
      result: null,
      error: null,
    });
  });

  it("a dangling or foreign hop stops the walk at the last job found", async () => {
    const dangling = await record({ status: "COMPLETED", result: { requeuedJobId: randomUUID() } });
    expect((await poll(dangling)).json()).toMatchObject({ status: "COMPLETED" });

    const foreign = await record({
      brandId: otherBrandId,
      status: "FAILED",
      error: { code: "X", message: "x", retryable: false },
    });
    const first = await record({ status: "COMPLETED", result: { chainedJobId: foreign } });
    const body = (await poll(first)).json();
    expect(body).toMatchObject({
      jobId: first,
      status: "COMPLETED",
      result: { chainedJobId: foreign },
      error: null,
    });
  });
});

describe("POST …/serenity/jobs/:jobId/reauth", () => {
  async function failedNeedingReauth(user: string): Promise<{ jobId: string; firstToken: string }> {
    const firstToken = await t.token({ sub: user, orgs: [orgId], ttlSeconds: 600 });
    const { jobId } = await t.services.jobs.submit({
      type: "test-upstream",
      orgId,
      brandId,
      metadata: {},
      createdBy: user,
      credentialToken: firstToken,
    });
    acceptedToken = undefined;
    await worker.drain();
    const state = (await poll(jobId)).json();
    expect(state).toMatchObject({ status: "FAILED", error: { code: "NEEDS_REAUTH", needsReauth: true } });
    return { jobId, firstToken };
  }

  const reauth = (jobId: string, token: string, brand = brandId) =>
    t.app.inject({ method: "POST", url: `${url(jobId, brand)}/reauth`, headers: auth(token) });

  it("resumes the same job id with the caller's fresh credential", async () => {
    const { jobId } = await failedNeedingReauth("user-a");
    const fresh = await t.token({ sub: "user-a", orgs: [orgId], ttlSeconds: 900 });
    acceptedToken = fresh;
    const response = await reauth(jobId, fresh);
    expect(response.statusCode).toBe(202);
    const location = `/v2/orgs/${orgId}/brands/${brandId}/serenity/jobs/${jobId}`;
    expect(response.headers.location).toBe(location);
    expect(response.json()).toEqual({
      jobId,
      jobType: "testUpstream",
      status: "IN_PROGRESS",
      job: { id: jobId, type: "testUpstream", status: "IN_PROGRESS", location },
    });
    // The Location is the poll.
    const polled = await t.app.inject({
      method: "GET",
      url: location,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(polled.json()).toMatchObject({ jobId, status: "IN_PROGRESS", error: null });
    await worker.drain();
    expect((await poll(jobId)).json()).toMatchObject({
      jobId,
      status: "COMPLETED",
      result: { written: true },
    });
    expect(seenTokens.at(-1)).toBe(fresh);
  });

  it("403 for another user, 404 for another brand, 409 unless FAILED with NEEDS_REAUTH", async () => {
    const { jobId } = await failedNeedingReauth("user-b");
    const stranger = await t.token({ sub: "user-c", orgs: [orgId] });
    expect((await reauth(jobId, stranger)).statusCode).toBe(403);
    const owner = await t.token({ sub: "user-b", orgs: [orgId] });
    expect((await reauth(jobId, owner, otherBrandId)).statusCode).toBe(404);

    const running = await record({ type: "test-upstream", createdBy: "user-b" });
    const conflict = await reauth(running, owner);
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toBe("invalidState");
    const otherFailure = await record({
      type: "test-upstream",
      createdBy: "user-b",
      status: "FAILED",
      error: { code: "JOB_FAILED", message: "The job failed.", retryable: false },
    });
    expect((await reauth(otherFailure, owner)).statusCode).toBe(409);
    // Nothing was sealed for the refused calls.
    const rows = await t.db.db.select().from(credentials).where(eq(credentials.ownerSub, "user-b"));
    expect(rows).toHaveLength(1);
  });

  it("two concurrent reauths: one 202, one 409, the loser's credential deleted, one delivery of the same id", async () => {
    const { jobId } = await failedNeedingReauth("user-d");
    const first = await t.token({ sub: "user-d", orgs: [orgId], ttlSeconds: 901 });
    const second = await t.token({ sub: "user-d", orgs: [orgId], ttlSeconds: 902 });
    const responses = await Promise.all([reauth(jobId, first), reauth(jobId, second)]);
    expect(responses.map((response) => response.statusCode).sort()).toEqual([202, 409]);

    const [job] = await t.db.db.select().from(jobs).where(eq(jobs.id, jobId));
    const live = await t.db.db
      .select()
      .from(credentials)
      .where(and(eq(credentials.ownerSub, "user-d")));
    // The original (invalidated when the job failed) and the winner's; the loser's row is gone.
    expect(live).toHaveLength(2);
    const winner = live.find((row) => row.id === job!.credentialId);
    expect(winner?.sealed).not.toBeNull();
    expect(live.filter((row) => row.sealed !== null)).toHaveLength(1);

    const messages = await t.db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from pgboss.job where data->>'jobId' = ${jobId} and state < 'active'`,
    );
    expect(messages.rows[0]?.n).toBe(1);
    acceptedToken = responses[0]!.statusCode === 202 ? first : second;
    await waitFor(async () => {
      await worker.drain();
      return (await poll(jobId)).json().status === "COMPLETED";
    });
  });
});
