import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { beginProvisioningAttempt } from "../../../src/db/brands/beginProvisioningAttempt.ts";
import { recordProvisioningCandidate } from "../../../src/db/brands/recordProvisioningCandidate.ts";
import { insertOrg } from "../../../src/db/orgs/insertOrg.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { GatewayError } from "../../../src/gateway/errors.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { UNMETERED_PARENT_WORKSPACE_ID as PARENT } from "../../../src/simulator/seeds.ts";
import { WorkspaceLifecycle } from "../../../src/subWorkspaces/workspaceLifecycle.ts";
import { insertTestBrand } from "../../support/brandRows.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { pumping } from "../../support/provisioningWorld.ts";
import { catalogueLanguageId, startTestSimulator, type TestSimulator } from "../../support/simulator.ts";

const BEARER = "lifecycle-test-bearer";
let sim: TestSimulator;
let db: TestDatabase;
let gateway: GatewayClient;
let clock: ManualClock;
let lifecycle: WorkspaceLifecycle;
let orgId: string;

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "unmetered" });
  db = await createTestDatabase();
  const logger = createLogger({ level: "silent" });
  gateway = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger,
    maxRetries: 0,
  });
  clock = new ManualClock(new Date());
  lifecycle = new WorkspaceLifecycle({ db: db.db, clock, gateway, logger });
  orgId = (await insertOrg(db.db, { name: "O", parentWorkspaceId: PARENT, now: clock.now() })).id;
});
afterAll(async () => {
  await gateway.close();
  await db.destroy();
  await sim.close();
});
beforeEach(async () => {
  await sim.control("/faults", undefined, "DELETE");
  await sim.clearCalls();
});

const newBrand = async () =>
  (
    await insertTestBrand(db.db, {
      orgId,
      name: `B ${randomUUID()}`,
      domain: null,
      primaryUrl: null,
      now: clock.now(),
    })
  ).id;
const title = (name: string) => `${name} ${randomUUID().slice(0, 8)}`;

async function child(name: string, settled = true): Promise<string> {
  const created = await gateway.users.createSubWorkspace(BEARER, PARENT, { title: name });
  if (settled) await sim.control("/status", { workspaceId: created.id, notReadyReads: 0 });
  return created.id;
}

async function statusReads(workspaceId: string): Promise<number> {
  return (await sim.calls()).filter((call) => call.path.endsWith(`/workspaces/${workspaceId}/status`)).length;
}

describe("settleSync", () => {
  it("polls on the injected clock until ready", async () => {
    const id = await child(title("Slow"), false);
    await sim.control("/status", { workspaceId: id, notReadyReads: 3 });
    await sim.clearCalls();
    const start = clock.now().getTime();
    await pumping(clock, lifecycle.settleSync(BEARER, id, 10_000));
    expect(await statusReads(id)).toBe(4);
    expect(clock.now().getTime() - start).toBe(750);
  });

  it("counts a transient status failure as not ready", async () => {
    const id = await child(title("Flaky"));
    await sim.control("/faults", { match: { pathPattern: "/status$" }, action: { status: 503 }, times: 2 });
    await pumping(clock, lifecycle.settleSync(BEARER, id, 10_000));
    expect(await statusReads(id)).toBe(3);
  });

  it("gives up with subworkspaceCreationTimeout once the budget is spent, leaving the workspace alone", async () => {
    const id = await child(title("Zombie"), false);
    await sim.control("/status", { workspaceId: id, status: "not ready" });
    await sim.clearCalls();
    const error = await pumping(clock, lifecycle.settleSync(BEARER, id, 2_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("subworkspaceCreationTimeout");
    // One read at t=0 and one after each 250 ms step up to the 2 s budget.
    expect(await statusReads(id)).toBe(9);
    expect((await sim.calls()).every((call) => call.method === "GET")).toBe(true);
  });

  it("fails at once with subworkspaceCreationFailed on a terminal status", async () => {
    const id = await child(title("Dead"), false);
    await sim.control("/status", { workspaceId: id, status: "creation_failed", notReadyReads: 0 });
    await sim.clearCalls();
    const error = await pumping(clock, lifecycle.settleSync(BEARER, id, 10_000)).catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe("subworkspaceCreationFailed");
    expect(await statusReads(id)).toBe(1);
  });
});

describe("createOrAdopt", () => {
  it("creates when nothing matches, and reports the workspace as freshly created", async () => {
    const name = title("Fresh");
    const handle = await lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand());
    expect(handle.freshlyCreated).toBe(true);
    expect((await sim.dump()).workspaces.find((ws) => ws.id === handle.workspaceId)?.title).toBe(name);
  });

  it("adopts a same-title ready workspace as not owned", async () => {
    const name = title("Existing");
    const id = await child(name);
    expect(await lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand())).toEqual({
      workspaceId: id,
      freshlyCreated: false,
    });
  });

  it("ignores a settling, a failed, a differently titled, and a candidate-claimed workspace", async () => {
    const name = title("Picky");
    const settling = await child(name, false);
    await sim.control("/status", { workspaceId: settling, notReadyReads: 100 });
    const failed = await child(name, false);
    await sim.control("/status", { workspaceId: failed, status: "error", notReadyReads: 0 });
    await child(`${name} `);
    const claimed = await child(name);
    const other = await newBrand();
    const attemptId = randomUUID();
    await beginProvisioningAttempt(db.db, { brandId: other, attemptId, now: clock.now() });
    await recordProvisioningCandidate(db.db, {
      brandId: other,
      attemptId,
      candidateWorkspaceId: claimed,
      now: clock.now(),
    });

    const handle = await lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand());
    expect(handle.freshlyCreated).toBe(true);
    expect([settling, failed, claimed]).not.toContain(handle.workspaceId);
    // The brand that holds the live candidate may take it itself.
    expect(await lifecycle.createOrAdopt(BEARER, PARENT, name, other)).toEqual({
      workspaceId: claimed,
      freshlyCreated: false,
    });
  });

  it("after a 504 that committed, adopts the new workspace even while it is still not ready, as its own", async () => {
    const name = title("Committed");
    await sim.control("/status", { title: name, notReadyReads: 50 });
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { afterCommit504: true },
      times: 1,
    });
    const handle = await lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand());
    const created = (await sim.dump()).workspaces.filter((ws) => ws.title === name);
    expect(created).toHaveLength(1);
    expect(handle).toEqual({ workspaceId: created[0]!.id, freshlyCreated: true });
  });

  it("after two 504s that did not commit, rethrows the gateway error once the family stays empty", async () => {
    const name = title("Lost");
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { status: 504, body: "gateway timeout" },
      times: 2,
    });
    const error = await pumping(clock, lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand())).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe("unavailable");
    // The look before creating, then three looks after each failed create.
    const familyReads = (await sim.calls()).filter((call) => call.path.endsWith("/family")).length;
    expect(familyReads).toBe(7);
  });

  it("after a 504 that did not commit and left nothing, creates once more", async () => {
    const name = title("Second try");
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { status: 504, body: "gateway timeout" },
      times: 1,
    });
    const handle = await pumping(clock, lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand()));
    expect(handle.freshlyCreated).toBe(true);
    const creates = (await sim.calls()).filter(
      (call) => call.method === "POST" && call.path.endsWith("/child"),
    );
    expect(creates.map((call) => call.status)).toEqual([504, 200]);
  });

  it("after a 504, takes the workspace its create made, not an older settling one of the same title", async () => {
    const name = title("Older");
    const older = await child(name, false);
    await sim.control("/status", { title: name, notReadyReads: 50 });
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { afterCommit504: true },
      times: 1,
    });
    const handle = await lifecycle.createOrAdopt(BEARER, PARENT, name, await newBrand());
    const titled = (await sim.dump()).workspaces.filter((ws) => ws.title === name).map((ws) => ws.id);
    expect(titled).toHaveLength(2);
    expect(handle.workspaceId).not.toBe(older);
    expect(titled).toContain(handle.workspaceId);
    expect(handle.freshlyCreated).toBe(true);
  });

  it("after a 504, refuses two ready same-title workspaces as ambiguous", async () => {
    const name = title("Double");
    // Both appear only after our first look (still settling then), as a concurrent creator would leave them.
    const a = await child(name, false);
    const b = await child(name, false);
    await sim.control("/status", { workspaceId: a, notReadyReads: 1 });
    await sim.control("/status", { workspaceId: b, notReadyReads: 1 });
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/child$" },
      action: { status: 504, body: "gateway timeout" },
      times: 1,
    });
    const error = await lifecycle
      .createOrAdopt(BEARER, PARENT, name, await newBrand())
      .catch((e: unknown) => e);
    expect((error as ServiceError).code).toBe("ambiguousWorkspace");
  });
});

describe("emptying a workspace", () => {
  async function withProjects(count: number): Promise<string> {
    const id = await child(title("Full"));
    for (let i = 0; i < count; i++) {
      await gateway.projects.createProject(BEARER, id, {
        name: `p${i}`,
        brandNameDisplay: "B",
        brandNames: ["B"],
        domain: "b.example",
        countryCode: "US",
        locationId: 2840,
        locationName: "United States",
        languageId: catalogueLanguageId("en"),
      });
    }
    return id;
  }

  it("deleteAllProjects deletes every project and never the workspace", async () => {
    const id = await withProjects(3);
    expect(await lifecycle.deleteAllProjects(BEARER, id)).toBe(3);
    expect((await gateway.projects.listProjects(BEARER, id)).total).toBe(0);
    expect(
      (await sim.calls()).some((call) => call.method === "DELETE" && call.path.endsWith(`/workspaces/${id}`)),
    ).toBe(false);
  });

  it("emptyWorkspace never throws: a failing delete is logged and reported as false", async () => {
    const id = await withProjects(1);
    await sim.control("/faults", {
      match: { method: "DELETE", pathPattern: "/projects/" },
      action: { status: 500 },
    });
    expect(await lifecycle.emptyWorkspace(BEARER, id)).toBe(false);
    await sim.control("/faults", undefined, "DELETE");
    expect(await lifecycle.emptyWorkspace(BEARER, id)).toBe(true);
    expect((await gateway.projects.listProjects(BEARER, id)).total).toBe(0);
  });
});
