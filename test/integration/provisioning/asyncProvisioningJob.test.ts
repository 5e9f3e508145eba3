import { randomUUID } from "node:crypto";

import { describe, expect, it } from "vitest";

import { PROVISIONING_ERROR_SENTENCES } from "../../../src/domain/provisioningAttempt.ts";
import { nextPollDelayMs } from "../../../src/domain/requeueLadder.ts";
import {
  type AsyncProvisioningWorld,
  PARENT,
  pointerOf,
  useAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { uniqueName } from "../../support/provisioningWorld.ts";
import { UM } from "../../support/simulator.ts";

/**
 * The `provision-workspace` job, path by path (spec/provisioning.md §5), through the real API,
 * worker, gateway client and simulator. Time is the ManualClock's; queue delays are made due by hand.
 */
let w: AsyncProvisioningWorld;
useAsyncProvisioningWorld((world) => (w = world), { settings: { settleMode: "reads", settleReads: 0 } });

const usEn = { market: "US", languageCode: "en" };

async function createAsync(name = uniqueName("Brand")) {
  const response = await w.call("POST", w.brandsUrl(), {
    name,
    domain: "brand.example",
    semrushMarket: usEn,
    async: true,
  });
  expect(response.status).toBe(202);
  return {
    name,
    brandId: response.body.id as string,
    jobId: response.body.jobId as string,
    body: response.body,
  };
}

describe("provision-workspace", () => {
  it("ready at the first poll: creates, records the candidate, promotes, chains create-market", async () => {
    const { name, brandId, jobId, body } = await createAsync();
    expect(body).toMatchObject({
      status: "pending",
      mode: "subworkspace",
      subWorkspaceId: null,
      provisioning: { status: "pending", error: null, jobId },
      jobType: "provisionWorkspace",
    });
    expect(await w.sim.calls()).toEqual([]); // nothing upstream on the request path

    await w.pollOnce();
    const first = await w.job(jobId);
    expect(first.status).toBe("COMPLETED");
    expect(first.result).toMatchObject({ chainedJobId: expect.any(String) });
    const brand = await w.brand(brandId);
    expect(brand).toMatchObject({ status: "active", provisioningStatus: "ready" });
    const workspaceId = pointerOf(brand);
    expect(brand.provisioningCandidateWorkspaceId).toBe(workspaceId);
    expect(first.metadata).toMatchObject({ candidateWorkspaceId: workspaceId, freshlyCreated: true });
    expect(w.attempts).toEqual(["ready"]);
    expect(await w.poll(brandId, jobId)).toMatchObject({ body: { status: "IN_PROGRESS" } });

    await w.drain();
    const polled = await w.poll(brandId, jobId);
    expect(polled.body).toMatchObject({
      jobId,
      jobType: "provisionWorkspace",
      status: "COMPLETED",
      result: { status: 201, body: { id: brandId, status: "active", subWorkspaceId: workspaceId } },
    });
    expect(await w.childrenTitled(name)).toHaveLength(1);
    expect(await w.projectsOf(workspaceId)).toBe(1);
  });

  it("not ready → requeues with the ladder's delay (one status read per hop, no sleeping), then promotes", async () => {
    await w.setSettings({ settleReads: 3 });
    const { brandId, jobId } = await createAsync();
    await w.pollOnce();
    const [first, second] = await w.lineage(jobId);
    expect(first!.result).toEqual({ requeuedJobId: second!.id });
    expect(second!.metadata).toMatchObject({ hop: 2, freshlyCreated: true });
    const [delay] = await w.pendingDelays(second!.id);
    expect(delay).toBeGreaterThan(nextPollDelayMs(0) - 400);
    expect(delay).toBeLessThanOrEqual(nextPollDelayMs(0) + 50);
    expect((await w.brand(brandId)).provisioningJobId).toBe(second!.id); // T3 by the worker

    // 20 s later the ladder asks for max(1 s, 25 %) = 5 s.
    w.clock.advance(20_000);
    await w.makeDue();
    await w.pollOnce();
    const third = (await w.lineage(jobId))[2]!;
    const [later] = await w.pendingDelays(third.id);
    expect(later).toBeGreaterThan(nextPollDelayMs(20_000) - 400);
    expect(later).toBeLessThanOrEqual(nextPollDelayMs(20_000) + 50);

    const statusReads = (await w.sim.calls()).filter((call) => call.path.endsWith("/status"));
    expect(statusReads).toHaveLength(2);
    await w.drain();
    expect(await w.brand(brandId)).toMatchObject({ provisioningStatus: "ready", status: "active" });
    expect((await w.poll(brandId, jobId)).body).toMatchObject({
      status: "COMPLETED",
      result: { status: 201 },
    });
  });

  it("a terminal status fails the attempt with its sentence and cleans nothing up", async () => {
    const name = uniqueName("Doomed");
    await w.sim.control("/status", { title: name, status: "creation failed" });
    const { brandId, jobId } = await createAsync(name);
    await w.pollOnce();
    const job = await w.job(jobId);
    expect(job.status).toBe("FAILED");
    expect(job.error).toMatchObject({ code: "subworkspaceCreationFailed", retryable: false });
    const brand = await w.brand(brandId);
    expect(brand).toMatchObject({
      provisioningStatus: "failed",
      provisioningError: PROVISIONING_ERROR_SENTENCES.upstreamFailed,
      subWorkspaceId: null,
    });
    const calls = (await w.sim.calls()).map((call) => `${call.method} ${call.path}`);
    expect(calls.filter((call) => call.includes("/projects"))).toEqual([]);
    expect(w.attempts).toEqual(["failed"]);
    expect((await w.poll(brandId, jobId)).body).toMatchObject({
      status: "FAILED",
      error: { code: "subworkspaceCreationFailed", needsReauth: false },
    });
  });

  it("a settle budget spent empties the owned candidate and fails 'did not settle'", async () => {
    const name = uniqueName("Zombie");
    await w.sim.control("/status", { title: name, notReadyReads: 100_000 });
    const { brandId, jobId } = await createAsync(name);
    await w.pollOnce();
    const candidate = (await w.brand(brandId)).provisioningCandidateWorkspaceId!;
    expect(candidate).toBeTruthy();
    w.clock.advance(10 * 60_000);
    await w.sim.clearCalls();
    await w.makeDue();
    await w.pollOnce();
    const last = (await w.lineage(jobId)).at(-1)!;
    expect(last.status).toBe("FAILED");
    expect(last.error).toMatchObject({ code: "subworkspaceCreationTimeout" });
    expect(await w.brand(brandId)).toMatchObject({
      provisioningStatus: "failed",
      provisioningError: PROVISIONING_ERROR_SENTENCES.didNotSettle,
      subWorkspaceId: null,
    });
    // Cleanup listed the candidate's projects (to delete them); the workspace itself stays.
    const calls = (await w.sim.calls()).map((call) => `${call.method} ${call.path}`);
    expect(calls).toContain(`GET /enterprise/projects/api/v1/workspaces/${candidate}/projects`);
    expect(calls.some((call) => call.startsWith("DELETE /enterprise/users"))).toBe(false);
    expect((await w.poll(brandId, jobId)).body).toMatchObject({ status: "FAILED" });
  });

  it("adopts the workspace a create left behind when the gateway timed out after committing (504)", async () => {
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { afterCommit504: true },
      times: 1,
    });
    const { name, brandId, jobId } = await createAsync();
    await w.pollOnce();
    const children = await w.childrenTitled(name);
    expect(children).toHaveLength(1);
    const first = await w.job(jobId);
    expect(first.metadata).toMatchObject({ candidateWorkspaceId: children[0]!.id, freshlyCreated: true });
    await w.drain();
    expect(pointerOf(await w.brand(brandId))).toBe(children[0]!.id);
  });

  it("a duplicate delivery of the same attempt waits for the brand's lease, then resumes with the recorded candidate", async () => {
    await w.setSettings({ settleReads: 1 });
    const { name, brandId, jobId } = await createAsync();
    // A second record for the same attempt (a producer that enqueued twice), delivered alongside.
    const original = await w.job(jobId);
    const { jobId: twin } = await w.t.services.jobs.submit({
      type: original.type,
      orgId: original.orgId,
      brandId,
      metadata: original.metadata,
      createdBy: "user-1",
      credentialToken: w.token,
    });
    // Before the brand lease (docs/decisions/0015) both creates were in flight at once and the
    // loser of T2 had to empty what it made; now the second hop waits for the first.
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { delayMs: 300 },
      times: 1,
    });
    await w.pollOnce({ pump: true });
    const [a, b] = [await w.job(jobId), await w.job(twin)];
    // Both handed on (a requeue, or — the second finding it settled — the promote's chain).
    for (const result of [a.result, b.result]) {
      expect(Object.keys(result ?? {}).some((key) => key === "requeuedJobId" || key === "chainedJobId")).toBe(
        true,
      );
    }
    expect(await w.childrenTitled(name)).toHaveLength(1);
    const creates = (await w.sim.calls()).filter(
      (call) => call.method === "POST" && call.path.endsWith("/child"),
    );
    expect(creates).toHaveLength(1);

    await w.drain();
    const done = await w.brand(brandId);
    expect(done.subWorkspaceId).toBe((await w.childrenTitled(name))[0]!.id);
  });

  it("a hop of a superseded attempt stands down without calling upstream", async () => {
    const { brandId, jobId } = await createAsync();
    await w.setBrand(brandId, { provisioningAttemptId: randomUUID() });
    await w.pollOnce();
    expect((await w.job(jobId)).result).toEqual({ status: 207, body: { brandId, status: "superseded" } });
    expect(await w.sim.calls()).toEqual([]);
    expect(w.attempts).toEqual(["superseded"]);
    expect((await w.poll(brandId, jobId)).body).toMatchObject({
      status: "COMPLETED",
      result: { status: 207, body: { status: "superseded" } },
    });
  });

  it("cancelled by a deactivate: the next hop empties the candidate it created and stands down", async () => {
    await w.setSettings({ settleReads: 5 });
    const { brandId, jobId } = await createAsync();
    await w.pollOnce();
    const candidate = (await w.brand(brandId)).provisioningCandidateWorkspaceId!;
    const deactivated = await w.call("POST", `${w.brandsUrl()}/${brandId}/serenity/deactivate`);
    expect(deactivated.status).toBe(200);
    await w.sim.clearCalls();
    await w.makeDue();
    await w.pollOnce();
    const last = (await w.lineage(jobId)).at(-1)!;
    expect(last.result).toEqual({ status: 207, body: { brandId, status: "superseded" } });
    const calls = (await w.sim.calls()).map((call) => `${call.method} ${call.path}`);
    expect(calls).toEqual([`GET /enterprise/projects/api/v1/workspaces/${candidate}/projects`]);
    expect(await w.brand(brandId)).toMatchObject({
      status: "pending",
      subWorkspaceId: null,
      provisioningStatus: "failed",
      provisioningError: PROVISIONING_ERROR_SENTENCES.deactivated,
    });
    expect(w.attempts).toEqual(["cancelled"]);
  });

  it("a chained job that cannot be enqueued after the promote fails the job; the brand stays ready", async () => {
    const { brandId, jobId } = await createAsync();
    w.failEnqueues.value = true;
    await w.pollOnce({ pump: true });
    w.failEnqueues.value = false;
    const job = await w.job(jobId);
    expect(job.status).toBe("FAILED");
    expect(job.error).toMatchObject({ code: "chained_job_enqueue_failed", retryable: false });
    expect(job.nextJobId).toBeNull();
    const brand = await w.brand(brandId);
    expect(brand).toMatchObject({ status: "active", provisioningStatus: "ready" });
    const workspaceId = pointerOf(brand);
    // Never cleaned up: no project listing of the promoted workspace.
    const calls = (await w.sim.calls()).map((call) => `${call.method} ${call.path}`);
    expect(calls.some((call) => call.includes(`${workspaceId}/projects`))).toBe(false);
    expect((await w.poll(brandId, jobId)).body).toMatchObject({
      status: "FAILED",
      error: { code: "chained_job_enqueue_failed" },
    });
  });

  it("an upstream 401 asks for a reauth and leaves the attempt pending for the resume", async () => {
    await w.sim.control("/faults", {
      match: { method: "GET", pathPattern: `${UM}/v1/workspaces/${PARENT}/family$` },
      action: { status: 401, body: { detail: "Not authenticated" } },
      times: 1,
    });
    const { brandId, jobId } = await createAsync();
    await w.pollOnce();
    expect((await w.job(jobId)).error).toMatchObject({ code: "NEEDS_REAUTH" });
    expect(await w.brand(brandId)).toMatchObject({ provisioningStatus: "pending" });
    const reauth = await w.call("POST", `${w.brandsUrl()}/${brandId}/serenity/jobs/${jobId}/reauth`);
    expect(reauth.status).toBe(202);
    await w.drain();
    expect(await w.brand(brandId)).toMatchObject({ provisioningStatus: "ready", status: "active" });
  });
});
