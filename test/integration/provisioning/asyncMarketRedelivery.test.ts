import { randomUUID } from "node:crypto";

import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";

import type { JobRow } from "../../../src/db/jobs/jobRow.ts";
import { findMarket } from "../../../src/db/markets/findMarket.ts";
import { recordReservationProject } from "../../../src/db/markets/recordReservationProject.ts";
import { reserveMarket } from "../../../src/db/markets/reserveMarket.ts";
import { jobs, markets } from "../../../src/db/schema.ts";
import { jobReservationKey } from "../../../src/markets/chainedMarketWork.ts";
import {
  type AsyncProvisioningWorld,
  pointerOf,
  useAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { uniqueName } from "../../support/provisioningWorld.ts";
import { PE } from "../../support/simulator.ts";

/**
 * The market-creating chained jobs under at-least-once delivery (ADR 0007, "Markets under
 * redelivery"): a delivery that died after reserving its slice leaves a `creating` row under the
 * job's reservation key, and the next delivery of the same job reclaims it (orphan project
 * deleted) instead of failing `marketExists` against itself; a reservation under another key
 * still blocks; a redelivery of a create that already finished answers the same success.
 */
let w: AsyncProvisioningWorld;
useAsyncProvisioningWorld((world) => (w = world), { settings: { settleMode: "reads", settleReads: 0 } });

const US_EN = { market: "US", languageCode: "en" };
const US = { geoTargetId: 2840, languageCode: "en" };

const brandUrl = (brandId: string, path = "") => `${w.brandsUrl()}/${brandId}${path}`;

/** A brand with its sub-workspace, made synchronously. */
async function activeBrand(): Promise<{ brandId: string; workspaceId: string }> {
  const created = await w.call("POST", w.brandsUrl(), {
    name: uniqueName("Redelivered"),
    domain: "brand.example",
  });
  expect(created.status).toBe(201);
  const activated = await w.call("POST", brandUrl(created.body.id, "/serenity/activate"), {});
  expect(activated.status).toBe(200);
  return { brandId: created.body.id, workspaceId: pointerOf(await w.brand(created.body.id)) };
}

/**
 * Runs the provisioning hop of an accepted request (fast path: the pointer is ready), leaving
 * its chained job queued but not yet delivered; returns that chained record.
 */
async function chainedJobOf(rootJobId: string): Promise<JobRow> {
  await w.pollOnce();
  const lineage = await w.lineage(rootJobId);
  const chained = lineage.at(-1)!;
  expect(chained.id).not.toBe(rootJobId);
  expect(chained.status).toBe("IN_PROGRESS");
  return chained;
}

/** A project made straight on the simulator, as a create that died before its rollback leaves one. */
async function orphanProject(workspaceId: string, name: string): Promise<string> {
  const language = await w.t.services.catalogues.resolveLanguage(w.token, "en");
  const response = await fetch(`${w.sim.url}${PE}/v1/workspaces/${workspaceId}/projects`, {
    method: "POST",
    headers: { authorization: `Bearer ${w.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      name,
      type: "ai",
      brand_name_display: name,
      brand_names: [name],
      domain: "brand.example",
      country_code: "us",
      location_id: 2840,
      location_name: "United States",
      language_id: language.id,
    }),
  });
  expect(response.ok).toBe(true);
  return ((await response.json()) as { id: string }).id;
}

/** The state a delivery leaves when it dies after reserving the slice and creating the project. */
async function leftoverReservation(
  brandId: string,
  workspaceId: string,
  reservationKey: string | null,
): Promise<{ marketId: string; projectId: string }> {
  const row = await reserveMarket(w.t.db.db, {
    brandId,
    ...US,
    country: "US",
    workspaceId,
    reservationKey,
    now: w.clock.now(),
  });
  expect(row).toBeDefined();
  const projectId = await orphanProject(workspaceId, "leftover");
  expect(
    await recordReservationProject(w.t.db.db, { id: row!.id, projectId, now: w.clock.now() }),
  ).toBeDefined();
  return { marketId: row!.id, projectId };
}

async function projectIdsOf(workspaceId: string): Promise<string[]> {
  return (await w.sim.dump()).projects
    .filter((project) => project.workspace_id === workspaceId)
    .map((project) => project.id as string);
}

/**
 * Puts a job whose work committed back to the state of a delivery that died before completing
 * it (record IN_PROGRESS, unleased, with its credential), and delivers it again.
 */
async function redeliver(job: JobRow): Promise<void> {
  const credentialId = await w.t.services.jobs.credentials.seal(job.createdBy ?? "user-1", w.token);
  await w.t.db.db
    .update(jobs)
    .set({
      status: "IN_PROGRESS",
      result: null,
      error: null,
      leaseToken: null,
      leaseExpiresAt: null,
      credentialId,
    })
    .where(eq(jobs.id, job.id));
  await w.t.services.jobs.queue.enqueue(job.id);
  await w.drain();
}

describe("create-market under redelivery", () => {
  it("reclaims its own leftover reservation: succeeds with exactly one project for the slice", async () => {
    const { brandId, workspaceId } = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...US_EN, async: true });
    expect(accepted.status).toBe(202);
    const chained = await chainedJobOf(accepted.body.jobId);
    const leftover = await leftoverReservation(brandId, workspaceId, jobReservationKey(chained));
    // Not stale: without the key, the slice would be blocked for the 10-minute threshold.
    expect(await projectIdsOf(workspaceId)).toEqual([leftover.projectId]);

    await w.drain();

    const polled = (await w.poll(brandId, accepted.body.jobId)).body;
    expect(polled).toMatchObject({
      status: "COMPLETED",
      result: { status: 201, body: { market: { ...US, country: "US" } } },
    });
    const projectIds = await projectIdsOf(workspaceId);
    expect(projectIds).toHaveLength(1);
    expect(projectIds[0]).not.toBe(leftover.projectId);
    const market = await findMarket(w.t.db.db, { brandId, ...US });
    expect(market).toMatchObject({ status: "ready", projectId: projectIds[0] });
    expect(market!.id).not.toBe(leftover.marketId);
    const result = polled.result as { body: { market: { projectId: string } } };
    expect(result.body.market.projectId).toBe(projectIds[0]);
  });

  it("a reservation under another key still blocks: the job fails marketExists and touches nothing", async () => {
    const { brandId, workspaceId } = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...US_EN, async: true });
    await chainedJobOf(accepted.body.jobId);
    const other = await leftoverReservation(brandId, workspaceId, `job:${randomUUID()}`);

    await w.drain();

    expect((await w.poll(brandId, accepted.body.jobId)).body).toMatchObject({
      status: "FAILED",
      error: { code: "marketExists" },
    });
    expect(await projectIdsOf(workspaceId)).toEqual([other.projectId]);
    expect(await findMarket(w.t.db.db, { brandId, ...US })).toMatchObject({
      id: other.marketId,
      status: "creating",
      projectId: other.projectId,
    });
    // A synchronous create (no key) is refused the same way.
    const sync = await w.call("POST", brandUrl(brandId, "/serenity/markets"), US_EN);
    expect(sync).toMatchObject({ status: 409, body: { error: "marketExists" } });
  });

  it("a job's key does not let it take a synchronous request's live reservation", async () => {
    const { brandId, workspaceId } = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...US_EN, async: true });
    await chainedJobOf(accepted.body.jobId);
    const live = await leftoverReservation(brandId, workspaceId, null);

    await w.drain();

    expect((await w.poll(brandId, accepted.body.jobId)).body).toMatchObject({
      status: "FAILED",
      error: { code: "marketExists" },
    });
    expect(await findMarket(w.t.db.db, { brandId, ...US })).toMatchObject({ id: live.marketId });
  });

  it("a redelivery after the create finished answers the same 201 and makes nothing new", async () => {
    const { brandId, workspaceId } = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/markets"), { ...US_EN, async: true });
    const chained = await chainedJobOf(accepted.body.jobId);
    await w.drain();
    const first = await w.job(chained.id);
    expect(first).toMatchObject({ status: "COMPLETED", result: { status: 201 } });
    const projectIds = await projectIdsOf(workspaceId);
    expect(projectIds).toHaveLength(1);

    await redeliver(first);

    const second = await w.job(chained.id);
    expect(second.status).toBe("COMPLETED");
    const before = first.result as { status: number; body: { market: Record<string, unknown> } };
    const after = second.result as typeof before;
    expect(after.status).toBe(201);
    // The same market (publishing completes upstream meanwhile, so its status is read afresh).
    const { publishStatus: _first, ...sameBefore } = before.body.market;
    const { publishStatus: _second, ...sameAfter } = after.body.market;
    expect(sameAfter).toEqual(sameBefore);
    expect(sameAfter.projectId).toBe(projectIds[0]);
    expect(await projectIdsOf(workspaceId)).toEqual(projectIds);
    expect((await w.poll(brandId, accepted.body.jobId)).body).toMatchObject({ status: "COMPLETED" });
  });
});

describe("activate-markets under redelivery", () => {
  it("a redelivery reports its own markets as made (201), not 409, and reclaims an interrupted one", async () => {
    const { brandId, workspaceId } = await activeBrand();
    const accepted = await w.call("POST", brandUrl(brandId, "/serenity/activate"), {
      markets: [{ market: "FR", languageCode: "fr" }, US_EN],
      async: true,
    });
    expect(accepted.status).toBe(202);
    const chained = await chainedJobOf(accepted.body.jobId);
    await w.drain();
    const first = await w.job(chained.id);
    expect(first.result).toMatchObject({
      status: 200,
      body: {
        markets: [
          { geoTargetId: 2250, status: 201 },
          { ...US, status: 201 },
        ],
      },
    });
    // As if the first delivery had died inside the US create: FR made, US reserved with an orphan.
    const deleted = await w.call("DELETE", brandUrl(brandId, "/serenity/markets/2840/en"));
    expect(deleted.status).toBe(204);
    const leftover = await leftoverReservation(brandId, workspaceId, jobReservationKey(chained));
    const frProject = (await findMarket(w.t.db.db, { brandId, geoTargetId: 2250, languageCode: "fr" }))!
      .projectId;

    await redeliver(first);

    expect((await w.job(chained.id)).result).toMatchObject({
      status: 200,
      body: {
        markets: [
          { geoTargetId: 2250, status: 201 },
          { ...US, status: 201 },
        ],
      },
    });
    const projectIds = await projectIdsOf(workspaceId);
    expect(projectIds).toHaveLength(2);
    expect(projectIds).toContain(frProject);
    expect(projectIds).not.toContain(leftover.projectId);
    const rows = await w.t.db.db
      .select()
      .from(markets)
      .where(and(eq(markets.brandId, brandId), eq(markets.status, "ready")));
    expect(rows.map((row) => row.projectId).sort()).toEqual([...projectIds].sort());
  });
});
