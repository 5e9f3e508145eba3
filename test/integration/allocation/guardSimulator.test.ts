import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { AllocationService } from "../../../src/allocation/allocationService.ts";
import { listLedgerEntries } from "../../../src/db/allocation/listLedgerEntries.ts";
import { RELEASE_FLOOR } from "../../../src/domain/allocation.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import type { ServiceEvents } from "../../../src/observability/events.ts";
import { OrgService } from "../../../src/orgs/orgService.ts";
import { type AllocationWorld, PARENT, startAllocationWorld, TOKEN } from "../../support/allocationWorld.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * The guard over real HTTP against the simulator: exact round trips from the simulator's call log,
 * the numbers of spec/allocation.md §10, and retryOnQuota's outcomes with a manual clock.
 */

let db: TestDatabase;
let h: AllocationWorld | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(() => db.destroy());

async function world(options: Parameters<typeof startAllocationWorld>[1] = {}) {
  h = await startAllocationWorld(db, options);
  return h;
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return (error as ServiceError).code;
}

const HTML_405 = {
  status: 405,
  contentType: "text/html",
  body: "<html><center><h1>405 Not Allowed</h1></center></html>",
};

describe("round trips (simulator call log)", () => {
  it("flag off: zero resources reads and zero transfers around a metered write", async () => {
    const t = await world({ env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const ws = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await t.clearCalls();
    await t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws));
    await t.guardFor(ws).section({ prompts: 1_000 }, async () => undefined);
    await t.guardFor(ws).releaseSurplus(RELEASE_FLOOR, "release");
    expect(await t.calls()).toEqual([`POST PE/v1/workspaces/${ws}/projects`]);
  });

  it("flag off: a metered 405 maps straight to quotaExceeded with no resources read", async () => {
    const t = await world({ env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const ws = await t.newSubWorkspace();
    await t.clearCalls();
    expect(
      await codeOf(t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws))),
    ).toBe("quotaExceeded");
    expect(await t.calls()).toEqual([`POST PE/v1/workspaces/${ws}/projects`]);
  });

  it("hot path: exactly one extra call (the resources read)", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    await t.clearCalls();
    await t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws));
    expect(await t.calls()).toEqual([
      `GET UM/v1/workspaces/${ws}/resources`,
      `POST PE/v1/workspaces/${ws}/projects`,
    ]);
  });

  it("top-up: exactly two extra calls, one transfer carrying both dimensions; never a parent read", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace();
    await t.clearCalls();
    expect(await t.ensure(ws, { projects: 1, prompts: 1 })).toEqual({
      toppedUp: true,
      newTotal: { projects: 1, prompts: 100 },
    });
    expect(await t.calls()).toEqual([
      `GET UM/v1/workspaces/${ws}/resources`,
      `POST UM/v2/workspaces/${ws}/resources/transfer`,
    ]);
    expect(await t.totals(ws)).toEqual({ projects: 1, prompts: 100 });
  });

  it("a multi-write section: one read and one transfer for all its writes, the lock held across them", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace();
    await t.clearCalls();
    const guard = t.guardFor(ws);
    const texts = ["first text", "second text"];
    let projectId = "";
    // Another request's section on the same sub-workspace, started (from outside the first
    // section's async context) once the first has written its project, waits for the first to end.
    let projectMade!: () => void;
    const second = new Promise<void>((resolve) => (projectMade = resolve)).then(() =>
      t
        .guardFor(ws)
        .section({ projects: 1 }, (other) =>
          other("projectCreate", () => t.createProject(ws), { projects: 1 }),
        ),
    );
    await guard.section({ projects: 1, prompts: texts.length }, async (write) => {
      projectId = await write("projectCreate", () => t.createProject(ws), { projects: 1 });
      projectMade();
      await write(
        "promptCreate",
        () => t.client.projects.createPrompts(TOKEN, ws, projectId, { texts, createdBy: "test" }),
        { prompts: texts.length },
      );
      await t.client.projects.patchProject(TOKEN, ws, projectId, { primaryUrl: "https://brand.example" });
      await write("publish", () => t.client.projects.publishProject(TOKEN, ws, projectId));
    });
    await second;
    const calls = await t.calls();
    const metered = calls.filter((line) => line.startsWith("POST PE"));
    expect(calls.slice(0, 2)).toEqual([
      `GET UM/v1/workspaces/${ws}/resources`,
      `POST UM/v2/workspaces/${ws}/resources/transfer`,
    ]);
    // The first section: project, prompts, publish, under its one read; the second's read after.
    expect(metered.slice(0, 3)).toEqual([
      `POST PE/v1/workspaces/${ws}/projects`,
      `POST PE/v3/workspaces/${ws}/projects/${projectId}/aio/prompts`,
      `POST PE/v1/workspaces/${ws}/projects/${projectId}/publish`,
    ]);
    const secondRead = calls.lastIndexOf(`GET UM/v1/workspaces/${ws}/resources`);
    expect(secondRead).toBeGreaterThan(calls.indexOf(metered[2]!));
    expect(calls.filter((line) => line.endsWith("/resources"))).toHaveLength(2);
    expect(calls.filter((line) => line.endsWith("/transfer"))).toHaveLength(2);
    // One top-up for the first section's whole need: 1 project, 2 prompt units → 1 / 100.
    expect(await t.totals(ws)).toEqual({ projects: 2, prompts: 100 });
  });

  it("flag off: a multi-write section makes zero extra calls", async () => {
    const t = await world({ env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const ws = await t.newSubWorkspace({ projects: 2, prompts: 100 });
    await t.clearCalls();
    await t.guardFor(ws).section({ projects: 2 }, async (write) => {
      await write("projectCreate", () => t.createProject(ws), { projects: 1 });
      await write("projectCreate", () => t.createProject(ws), { projects: 1 });
    });
    expect(await t.calls()).toEqual([
      `POST PE/v1/workspaces/${ws}/projects`,
      `POST PE/v1/workspaces/${ws}/projects`,
    ]);
  });

  it("1 prompt on an empty sub-workspace tops up to 100; 101 → 200", async () => {
    const t = await world();
    const one = await t.newSubWorkspace();
    const many = await t.newSubWorkspace();
    await t.ensure(one, { prompts: 1 });
    await t.ensure(many, { prompts: 101 });
    expect(await t.totals(one)).toEqual({ projects: 0, prompts: 100 });
    expect(await t.totals(many)).toEqual({ projects: 0, prompts: 200 });
  });
});

describe("release", () => {
  it("{5, 800} with no usage: dry run makes zero mutating calls and reports {1, 100}; the real run returns {4, 700}", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace({ projects: 5, prompts: 800 });
    const parentBefore = await t.totals(PARENT);
    await t.clearCalls();

    const dry = await t.release(ws, { floor: RELEASE_FLOOR, dryRun: true });
    expect(dry).toMatchObject({ outcome: "dryRun", target: { projects: 1, prompts: 100 } });
    expect((await t.calls()).filter((line) => !line.startsWith("GET "))).toEqual([]);
    expect(await t.totals(ws)).toEqual({ projects: 5, prompts: 800 });

    const real = await t.release(ws, { floor: RELEASE_FLOOR });
    expect(real).toMatchObject({ outcome: "released", after: { projects: 1, prompts: 100 } });
    expect(await t.totals(ws)).toEqual({ projects: 1, prompts: 100 });
    const parentAfter = await t.totals(PARENT);
    expect({
      projects: parentAfter.projects - parentBefore.projects,
      prompts: parentAfter.prompts - parentBefore.prompts,
    }).toEqual({ projects: 4, prompts: 700 });
    const [entry] = await listLedgerEntries(db.db, t.orgId, { limit: 1 });
    expect(entry).toMatchObject({
      reason: "release",
      before: { projects: 5, prompts: 800 },
      after: { projects: 1, prompts: 100 },
      outcome: "applied",
    });
  });
});

describe("rejections", () => {
  it("a ceiling → brandAiLimit with nothing transferred", async () => {
    const t = await world({ env: { SERENITY_BRAND_AI_CEILING_PROMPTS: "200" } });
    const ws = await t.newSubWorkspace();
    await t.clearCalls();
    expect(await codeOf(t.ensure(ws, { prompts: 201 }))).toBe("brandAiLimit");
    expect(await t.calls()).toEqual([`GET UM/v1/workspaces/${ws}/resources`]);
    expect(await t.totals(ws)).toEqual({ projects: 0, prompts: 0 });
  });

  it("gold pool: three brands each create a market and 100 prompts with 1 model; the fourth's oversized top-up is orgPoolExhausted and the pool is unchanged", async () => {
    const t = await world();
    for (let brand = 0; brand < 3; brand++) {
      const ws = await t.newSubWorkspace();
      const projectId = await t
        .guardFor(ws)
        .singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws));
      const models = await t.client.projects.listProjectAiModels(TOKEN, ws, projectId);
      expect(models).toHaveLength(1);
      const texts = Array.from({ length: 100 }, (_, i) => `prompt ${brand}-${i}`);
      await t
        .guardFor(ws)
        .singleWrite("promptCreate", { prompts: texts.length * models.length }, () =>
          t.client.projects.createPrompts(TOKEN, ws, projectId, { texts, createdBy: "test" }),
        );
      expect(await t.totals(ws)).toEqual({ projects: 1, prompts: 100 });
    }
    const pool = await t.totals(PARENT);
    expect(pool).toEqual({ projects: 10, prompts: 500 });

    const fourth = await t.newSubWorkspace();
    await t.clearCalls();
    expect(await codeOf(t.ensure(fourth, { projects: 1, prompts: 501 }))).toBe("orgPoolExhausted");
    // The block (600), then the exact requirement (501, §11 step 1): both beyond the pool's 500.
    expect(await t.calls()).toEqual([
      `GET UM/v1/workspaces/${fourth}/resources`,
      `POST UM/v2/workspaces/${fourth}/resources/transfer`,
      `POST UM/v2/workspaces/${fourth}/resources/transfer`,
    ]);
    expect(await t.totals(PARENT)).toEqual(pool);
    expect(await t.totals(fourth)).toEqual({ projects: 0, prompts: 0 });
  });

  it("a transfer answering 'workspace not ready' fails fast with workspaceBusy", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace();
    await t.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/resources/transfer$" },
      action: { status: 422, body: { message: "workspace not ready" } },
      times: 1,
    });
    await t.clearCalls();
    expect(await codeOf(t.ensure(ws, { projects: 1 }))).toBe("workspaceBusy");
    expect((await t.calls()).filter((line) => line.includes("transfer"))).toHaveLength(1);
  });
});

describe("retryOnQuota (manual clock, never sleeping)", () => {
  it("recovered: a read lagging after a publish is fixed by re-ensuring, then the write succeeds", async () => {
    const clock = new ManualClock();
    const t = await world({ clock });
    const ws = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    // The first resources read after the publish still shows the published project as unused.
    t.sim.simulator.updateSettings({ usedLagReads: 1 });
    const first = await t.createProject(ws);
    await t.client.projects.patchProject(TOKEN, ws, first, { primaryUrl: "https://brand.example" });
    await t.client.projects.publishProject(TOKEN, ws, first);
    expect((await t.sim.dump()).workspaces.find((w) => w.id === ws)?.resources.projects).toMatchObject({
      used: 1,
    });
    const quotaRetries: ServiceEvents["allocation.quotaRetry"][] = [];
    t.events.on("allocation.quotaRetry", (event) => quotaRetries.push(event));
    await t.clearCalls();

    const written = t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws));
    await clock.untilSleeping();
    clock.advance(3_000);
    expect(await written).toEqual(expect.any(String));
    expect(quotaRetries).toEqual([{ callSite: "projectCreate", outcome: "recovered" }]);
    expect(await t.calls()).toEqual([
      `GET UM/v1/workspaces/${ws}/resources`,
      `POST PE/v1/workspaces/${ws}/projects`,
      `GET UM/v1/workspaces/${ws}/resources`,
      `POST UM/v2/workspaces/${ws}/resources/transfer`,
      `POST PE/v1/workspaces/${ws}/projects`,
    ]);
    expect(await t.totals(ws)).toEqual({ projects: 2, prompts: 100 });
  });

  it("exhausted: the upstream keeps refusing → 3 retries 3 s apart, then quotaExceeded", async () => {
    const clock = new ManualClock();
    const t = await world({ clock });
    const ws = await t.newSubWorkspace({ projects: 3, prompts: 100 });
    await t.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: HTML_405,
    });
    const quotaRetries: ServiceEvents["allocation.quotaRetry"][] = [];
    t.events.on("allocation.quotaRetry", (event) => quotaRetries.push(event));
    await t.clearCalls();

    const written = t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws));
    for (let retry = 0; retry < 3; retry++) {
      await clock.untilSleeping();
      clock.advance(3_000);
    }
    expect(await codeOf(written)).toBe("quotaExceeded");
    expect((await t.calls()).filter((line) => line.startsWith("POST PE"))).toHaveLength(4);
    expect(quotaRetries).toEqual([{ callSite: "projectCreate", outcome: "exhausted" }]);
  });

  it("abandoned: a non-quota failure on the retry propagates", async () => {
    const clock = new ManualClock();
    const t = await world({ clock });
    const ws = await t.newSubWorkspace({ projects: 3, prompts: 100 });
    await t.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: HTML_405,
      times: 1,
    });
    await t.sim.control("/faults", {
      match: { method: "POST", pathPattern: "/projects$" },
      action: { status: 409, contentType: "text/plain", body: "conflict" },
      times: 1,
    });
    const quotaRetries: ServiceEvents["allocation.quotaRetry"][] = [];
    t.events.on("allocation.quotaRetry", (event) => quotaRetries.push(event));
    const written = t.guardFor(ws).singleWrite("projectCreate", { projects: 1 }, () => t.createProject(ws));
    await clock.untilSleeping();
    clock.advance(3_000);
    await expect(written).rejects.toMatchObject({ kind: "conflict" });
    expect(quotaRetries).toEqual([{ callSite: "projectCreate", outcome: "abandoned" }]);
  });
});

/**
 * The cases guardRules.test.ts checks against the in-memory upstream model, here on the simulator
 * over real HTTP with the real gateway client: the ledger row of a top-up, a read the token may
 * not make, and the sweep's settle release.
 */
describe("the in-memory model's cases, on the simulator", () => {
  it("records the top-up in the ledger", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    expect(await t.ensure(ws, { projects: 2 })).toMatchObject({ toppedUp: true });
    const [entry] = await listLedgerEntries(db.db, t.orgId, { limit: 10 });
    expect(entry).toMatchObject({
      orgId: t.orgId,
      subWorkspaceId: ws,
      reason: "topUp",
      before: { projects: 1, prompts: 100 },
      after: { projects: 2, prompts: 100 },
      outcome: "applied",
      errorCode: null,
    });
    expect(entry?.requestId).toMatch(/^req-/);
    expect(await t.totals(ws)).toEqual({ projects: 2, prompts: 100 });
  });

  it("publish ({}) re-check: an over-committed sub-workspace is topped up to used + drafted", async () => {
    const t = await world();
    const ws = await t.newSubWorkspace({ projects: 2, prompts: 100 });
    await t.createProject(ws);
    await t.createProject(ws);
    // An operator lowered the allocation below what is in use (e.g. a release from a stale read).
    await t.sim.control("/quota", { workspaceId: ws, projects: 1 });
    expect(await t.totals(ws)).toEqual({ projects: 1, prompts: 100 });
    await t.clearCalls();
    expect(await t.ensure(ws, {})).toEqual({
      toppedUp: true,
      newTotal: { projects: 2, prompts: 100 },
    });
    expect(await t.totals(ws)).toEqual({ projects: 2, prompts: 100 });
    expect(await t.calls()).toEqual([
      `GET UM/v1/workspaces/${ws}/resources`,
      `POST UM/v2/workspaces/${ws}/resources/transfer`,
    ]);
  });

  it("a read the token may not make (403) → forbidden, nothing transferred", async () => {
    const t = await world();
    await t.clearCalls();
    expect(await codeOf(t.ensure("sub-unknown", { projects: 1 }))).toBe("forbidden");
    const calls = await t.calls();
    expect(calls).toEqual(["GET UM/v1/workspaces/sub-unknown/resources"]);
  });

  it("AllocationService.releaseSurplus (the sweep): retries not-ready with 1/2/3 s backoff, records reason sweep, ignores the kill switch", async () => {
    const clock = new ManualClock();
    const t = await world({ clock, env: { SERENITY_DYNAMIC_ALLOCATION: "false" } });
    const service = new AllocationService({ ...t.deps, orgs: new OrgService({ db: db.db, clock }) });
    const notReady = (times: number) =>
      t.sim.control("/faults", {
        match: { method: "POST", pathPattern: "/resources/transfer$" },
        action: { status: 422, body: { message: "workspace not ready" } },
        times,
      });
    const target = (subWorkspaceId: string) => ({
      orgId: t.orgId,
      brandId: null,
      subWorkspaceId,
      requestId: null,
      bearer: TOKEN,
    });

    const settles = await t.newSubWorkspace({ projects: 3, prompts: 300 });
    await notReady(2);
    const released = service.releaseSurplus(target(settles), { floor: RELEASE_FLOOR, reason: "sweep" });
    for (const wait of [1_000, 2_000]) {
      await clock.untilSleeping();
      clock.advance(wait);
    }
    expect(await released).toMatchObject({ outcome: "released", after: { projects: 1, prompts: 100 } });
    expect(await t.totals(settles)).toEqual({ projects: 1, prompts: 100 });
    const [entry] = await listLedgerEntries(db.db, t.orgId, { limit: 1 });
    expect(entry).toMatchObject({ reason: "sweep", outcome: "applied" });

    const zombie = await t.newSubWorkspace({ projects: 3, prompts: 300 });
    await notReady(10);
    await t.clearCalls();
    const failed = service.releaseSurplus(target(zombie), { floor: RELEASE_FLOOR, reason: "sweep" });
    for (const wait of [1_000, 2_000, 3_000]) {
      await clock.untilSleeping();
      clock.advance(wait);
    }
    expect(await failed).toMatchObject({ outcome: "error", errorCode: "workspaceBusy" });
    expect((await t.calls()).filter((line) => line.endsWith("/resources/transfer"))).toHaveLength(4);
    expect(await t.totals(zombie)).toEqual({ projects: 3, prompts: 300 });
  });
});
