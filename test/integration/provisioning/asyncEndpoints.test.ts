import { beforeEach, describe, expect, it } from "vitest";

import { PROVISIONING_ERROR_SENTENCES } from "../../../src/domain/provisioningAttempt.ts";
import { staleAttemptsStep } from "../../../src/subWorkspaces/staleAttemptsStep.ts";
import {
  type AsyncProvisioningWorld,
  pointerOf,
  useAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { uniqueName } from "../../support/provisioningWorld.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * The endpoints that provision asynchronously (spec/provisioning.md §6): 202 bodies, the master
 * switch, the races between producers, chained results read through the chain-following poll,
 * deactivate racing a promote in both orders, and the reconciler's stale-attempt step.
 */
let w: AsyncProvisioningWorld;
beforeEach(() => {
  delete process.env.SERENITY_ASYNC_PROVISIONING;
});
useAsyncProvisioningWorld(
  (world) => {
    w = world;
    const step = staleAttemptsStep({ events: w.t.events });
    w.worker.reconciler.addStep(step.name, step.step);
  },
  { settings: { settleMode: "reads", settleReads: 0 } },
);

const usEn = { market: "US", languageCode: "en" };

const brandUrl = (brandId: string, path = "") => `${w.brandsUrl()}/${brandId}${path}`;

/** A brand with its sub-workspace, made synchronously. */
async function activeBrand(): Promise<{ brandId: string; workspaceId: string }> {
  const created = await w.call("POST", w.brandsUrl(), {
    name: uniqueName("Active"),
    domain: "brand.example",
  });
  expect(created.status).toBe(201);
  const activated = await w.call("POST", brandUrl(created.body.id, "/serenity/activate"), {});
  expect(activated.status).toBe(200);
  return { brandId: created.body.id, workspaceId: pointerOf(await w.brand(created.body.id)) };
}

async function flatBrand(): Promise<string> {
  const created = await w.call("POST", w.brandsUrl(), { name: uniqueName("Flat"), domain: "brand.example" });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe("async createMarket", () => {
  it("202 {jobId, status, job}; the poll of that id reads IN_PROGRESS, then the create-market result", async () => {
    const { brandId, workspaceId } = await activeBrand();
    await w.sim.clearCalls();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...usEn, async: true });
    expect(accepted.status).toBe(202);
    const { jobId } = accepted.body;
    // The one 202 of ADR 0037: the job's own object beside the fields kept from earlier releases.
    expect(accepted.body).toEqual({
      jobId: expect.any(String),
      status: "IN_PROGRESS",
      job: {
        id: jobId,
        type: "provisionWorkspace",
        status: "IN_PROGRESS",
        location: brandUrl(brandId, `/serenity/jobs/${jobId}`),
      },
    });
    expect(await w.sim.calls()).toEqual([]);
    expect((await w.poll(brandId, jobId)).body).toMatchObject({ jobId, status: "IN_PROGRESS" });

    await w.pollOnce(); // fast path: polls the pointer, promotes it again, chains create-market
    expect((await w.sim.calls()).map((call) => call.method + " " + call.path)).toEqual([
      `GET /enterprise/users/api/v1/workspaces/${workspaceId}/status`,
    ]);
    expect((await w.poll(brandId, jobId)).body).toMatchObject({ jobId, status: "IN_PROGRESS" });
    await w.drain();
    const done = await w.poll(brandId, jobId);
    expect(done.body).toMatchObject({
      jobId,
      jobType: "provisionWorkspace",
      status: "COMPLETED",
      result: { status: 201, body: { market: { geoTargetId: 2840, languageCode: "en", country: "US" } } },
    });
    expect(await w.projectsOf(workspaceId)).toBe(1);
    expect(await w.brand(brandId)).toMatchObject({ status: "active", subWorkspaceId: workspaceId });

    // The slice now exists: said at once, no job.
    const again = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...usEn, async: true });
    expect(again).toMatchObject({ status: 409, body: { error: "marketExists" } });
  });

  it("two async creates for one brand: one 202, one 409 semrushProvisioningInProgress", async () => {
    const { brandId } = await activeBrand();
    const [fr, de] = await Promise.all([
      w.call("POST", brandUrl(brandId, "/serenity/markets"), {
        market: "FR",
        languageCode: "fr",
        async: true,
      }),
      w.call("POST", brandUrl(brandId, "/serenity/markets"), {
        market: "DE",
        languageCode: "de",
        async: true,
      }),
    ]);
    expect([fr.status, de.status].sort()).toEqual([202, 409]);
    expect([fr, de].find((answer) => answer.status === 409)!.body.error).toBe(
      "semrushProvisioningInProgress",
    );
    await w.drain();
  });

  it("a flat-looking brand whose provisioning is pending or failed: 409 semrushProvisioningIncomplete", async () => {
    const brandId = await flatBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/activate"), { async: true });
    expect(accepted.status).toBe(202);
    const pending = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...usEn, async: true });
    expect(pending).toMatchObject({ status: 409, body: { error: "semrushProvisioningIncomplete" } });
    await w.setBrand(brandId, { provisioningStatus: "failed" });
    const failed = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...usEn, async: true });
    expect(failed).toMatchObject({ status: 409, body: { error: "semrushProvisioningIncomplete" } });
    await w.drain();
  });

  it("a flat brand has nothing to provision: async: true creates in the parent synchronously", async () => {
    const brandId = await flatBrand();
    const created = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...usEn, async: true });
    expect(created.status).toBe(201);
  });
});

describe("async activate", () => {
  it("a brand without a workspace: provisioned, then activate-brand creates the requested markets", async () => {
    const brandId = await flatBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/activate"), {
      markets: [usEn],
      async: true,
    });
    expect(accepted).toMatchObject({
      status: 202,
      body: { jobId: expect.any(String), status: "IN_PROGRESS" },
    });
    expect(await w.brand(brandId)).toMatchObject({
      provisioningStatus: "pending",
      provisioningJobId: accepted.body.jobId,
    });
    await w.drain();
    expect((await w.poll(brandId, accepted.body.jobId)).body).toMatchObject({
      status: "COMPLETED",
      result: {
        status: 200,
        body: {
          brandId,
          status: "active",
          markets: [{ geoTargetId: 2840, languageCode: "en", status: 201 }],
        },
      },
    });
    expect(await w.brand(brandId)).toMatchObject({ status: "active", provisioningStatus: "ready" });
  });

  it("an active brand with its workspace: activate-markets reports an existing slice as 409", async () => {
    const { brandId } = await activeBrand();
    expect((await w.call("POST", brandUrl(brandId, "/serenity/markets"), usEn)).status).toBe(201);
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/activate"), {
      markets: [usEn, { market: "FR", languageCode: "fr" }],
      async: true,
    });
    expect(accepted.status).toBe(202);
    await w.drain();
    expect((await w.poll(brandId, accepted.body.jobId)).body).toMatchObject({
      status: "COMPLETED",
      result: {
        status: 200,
        body: {
          markets: [
            { geoTargetId: 2840, status: 409 },
            { geoTargetId: 2250, status: 201 },
          ],
        },
      },
    });
  });

  it("a synchronous activate while an async attempt is live: 409, and the attempt is untouched", async () => {
    const brandId = await flatBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/activate"), { async: true });
    expect(accepted.status).toBe(202);
    const sync = await w.call("POST", brandUrl(brandId, "/serenity/activate"), {});
    expect(sync).toMatchObject({ status: 409, body: { error: "semrushProvisioningInProgress" } });
    const syncMarket = await w.call("POST", brandUrl(brandId, "/serenity/markets"), usEn);
    expect(syncMarket).toMatchObject({ status: 409, body: { error: "semrushProvisioningIncomplete" } });
    expect(await w.sim.calls()).toEqual([]);
    await w.drain();
    expect(await w.brand(brandId)).toMatchObject({ provisioningStatus: "ready", status: "active" });
  });
});

describe("the master switch", () => {
  it("SERENITY_ASYNC_PROVISIONING=false: async: true silently runs the synchronous paths", async () => {
    process.env.SERENITY_ASYNC_PROVISIONING = "false";
    const brandId = await flatBrand();
    const activated = await w.call("POST", brandUrl(brandId, "/serenity/activate"), {
      markets: [usEn],
      async: true,
    });
    expect(activated).toMatchObject({ status: 200, body: { status: "active" } });
    const market = await w.call("POST", brandUrl(brandId, "/serenity/markets"), {
      market: "FR",
      languageCode: "fr",
      async: true,
    });
    expect(market.status).toBe(201);
    const brand = await w.call("POST", w.brandsUrl(), {
      name: uniqueName("Switch"),
      domain: "brand.example",
      semrushMarket: usEn,
      async: true,
    });
    expect(brand).toMatchObject({ status: 201, body: { status: "active" } });
    expect(brand.body).not.toHaveProperty("jobId");
    expect(await w.worker.pollOnce()).toBe(0);
  });
});

describe("async createBrand", () => {
  it("an enqueue failure fails the attempt and answers 503 configurationError", async () => {
    const queue = w.t.services.jobs.queue;
    const enqueue = queue.enqueue;
    queue.enqueue = async () => {
      throw new Error("queue unavailable (test)");
    };
    try {
      const name = uniqueName("NoQueue");
      const response = await w.call("POST", w.brandsUrl(), {
        name,
        domain: "brand.example",
        semrushMarket: usEn,
        async: true,
      });
      expect(response).toMatchObject({ status: 503, body: { error: "configurationError" } });
      const [brand] = (await w.call("GET", w.brandsUrl())).body.items.filter(
        (item: { name: string }) => item.name === name,
      );
      expect(brand).toMatchObject({
        status: "pending",
        mode: "subworkspace",
        provisioning: { status: "failed", error: PROVISIONING_ERROR_SENTENCES.couldNotStart },
      });
      expect(w.attempts).toEqual(["failed"]);
    } finally {
      queue.enqueue = enqueue;
    }
  });
});

describe("deactivate racing a promote", () => {
  it("promote first: the chained create-market stands down; nothing live is left, the brand stays pending", async () => {
    const created = await w.call("POST", w.brandsUrl(), {
      name: uniqueName("Race"),
      domain: "brand.example",
      semrushMarket: usEn,
      async: true,
    });
    const { id: brandId, jobId } = created.body;
    await w.pollOnce(); // promoted; create-market queued
    const workspaceId = pointerOf(await w.brand(brandId));
    const deactivated = await w.call("POST", brandUrl(brandId, "/serenity/deactivate"));
    expect(deactivated).toMatchObject({ status: 200, body: { brandId, status: "pending" } });
    await w.drain();
    expect((await w.poll(brandId, jobId)).body).toMatchObject({
      status: "COMPLETED",
      result: { status: 207, body: { brandId, status: "superseded" } },
    });
    expect(await w.projectsOf(workspaceId)).toBe(0);
    expect(await w.brand(brandId)).toMatchObject({ status: "pending", subWorkspaceId: null });
  });

  it("deactivate first: the cancelled hop cannot promote; its candidate is emptied, the brand stays pending", async () => {
    await w.setSettings({ settleReads: 2 });
    const created = await w.call("POST", w.brandsUrl(), {
      name: uniqueName("Race"),
      domain: "brand.example",
      semrushMarket: usEn,
      async: true,
    });
    const { id: brandId, jobId } = created.body;
    await w.pollOnce(); // candidate created, not ready: requeued
    const candidate = (await w.brand(brandId)).provisioningCandidateWorkspaceId!;
    expect((await w.call("POST", brandUrl(brandId, "/serenity/deactivate"))).status).toBe(200);
    await w.drain(); // the workspace is ready by now; the hop must still not promote
    expect((await w.poll(brandId, jobId)).body).toMatchObject({ result: { status: 207 } });
    expect(await w.brand(brandId)).toMatchObject({
      status: "pending",
      subWorkspaceId: null,
      provisioningStatus: "failed",
    });
    expect(await w.projectsOf(candidate)).toBe(0);
    expect(w.attempts).toEqual(["cancelled"]);
  });

  it("a deactivate during the chained market's writes waits for them, then leaves no live project and no resurrected brand", async () => {
    const { brandId, workspaceId } = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...usEn, async: true });
    await w.pollOnce(); // promoted (fast path), create-market queued
    // The deactivate lands while the market's project is being created: the publish reached the
    // simulator (its one-shot slow fault was taken), which holds it for 5 s.
    await w.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/publish$" },
      action: { delayMs: 5_000 },
      times: 1,
    });
    await w.makeDue();
    const running = w.worker.pollOnce();
    await waitFor(() => w.sim.simulator.faults.size === 0);
    // The market job holds the brand's lease (docs/decisions/0015): the deactivate waits for it
    // (real contention, within the lease's 10 s wait) and runs after it.
    expect((await w.call("POST", brandUrl(brandId, "/serenity/deactivate"))).status).toBe(200);
    await running;
    await w.drain();
    // Serialised: the market was made first (or the job saw the brand move on), and the deactivate
    // that ran after it removed it. Never a live project behind a successful deactivate.
    const polled = (await w.poll(brandId, accepted.body.jobId)).body;
    expect(polled.status).not.toBe("IN_PROGRESS");
    expect(await w.projectsOf(workspaceId)).toBe(0);
    expect(await w.brand(brandId)).toMatchObject({ status: "pending", subWorkspaceId: null });
  });
});

describe("the reconciler's stale-attempt step", () => {
  it("fails attempts pending past SERENITY_PROVISIONING_STALE_MS 'went stale', and only those", async () => {
    const stale = await flatBrand();
    const fresh = await flatBrand();
    expect((await w.call("POST", brandUrl(stale, "/serenity/activate"), { async: true })).status).toBe(202);
    w.clock.advance(10 * 60_000 + 1_000);
    expect((await w.call("POST", brandUrl(fresh, "/serenity/activate"), { async: true })).status).toBe(202);
    const report = await w.worker.reconciler.run();
    expect(report.steps["provisioning.staleAttempts"]).toEqual({ found: 1, failed: 1 });
    expect(await w.brand(stale)).toMatchObject({
      provisioningStatus: "failed",
      provisioningError: PROVISIONING_ERROR_SENTENCES.stale,
    });
    expect(await w.brand(fresh)).toMatchObject({ provisioningStatus: "pending" });
    expect(w.attempts).toEqual(["stale"]);
    await w.drain();
    expect(await w.brand(stale)).toMatchObject({ provisioningStatus: "failed", subWorkspaceId: null });
    expect(await w.brand(fresh)).toMatchObject({ provisioningStatus: "ready" });
  });
});
