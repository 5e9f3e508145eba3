import { randomUUID } from "node:crypto";

import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { QUOTA_RETRY_INTERVAL_MS } from "../../../src/allocation/retryOnQuota.ts";
import { createMetrics, type Metrics } from "../../../src/observability/metrics.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { api } from "../../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator, UM } from "../../support/simulator.ts";
import { countStatements } from "../../support/statementCount.ts";
import { callRoute, createTestApp, type TestApp } from "../../support/testApp.ts";
import { track, waitFor } from "../../support/wait.ts";

/**
 * Each parent's own metering (spec/allocation.md §13, issue 34), end to end: the app listening on a
 * real port (every request real HTTP, every upstream call the real gateway client's, over real HTTP
 * against the simulator), real PostgreSQL. With SERENITY_DYNAMIC_ALLOCATION=true the guard follows
 * each org's parent: an unmetered org's writes pass through at the cost of the switch off, a
 * metered org's are allocated just in time, and a parent that changes kind is followed without a
 * restart. The app runs on a ManualClock so the §6 retry waits never sleep: `pumped` moves it over
 * a retry wait once the request is blocked on one.
 */

const US = { geoTargetId: 2840, languageCode: "en" };
/** The issue's tiny subscription: 2 project units and 100 prompt units. */
const TINY = { projects: 2, prompts: 100 };

let sim: TestSimulator;
let t: TestApp;
let metrics: Metrics;
let baseUrl: string;
let admin: string;
const clock = new ManualClock(new Date());
const previousSwitch = process.env.SERENITY_DYNAMIC_ALLOCATION;

beforeAll(async () => {
  sim = await startTestSimulator({ seed: "empty", settings: { settleReads: 0 } });
  // Refresh reads unpaced: the pacing waits on the clock, which only moves over retry waits here.
  t = await createTestApp({ clock, gateway: { url: sim.url }, poolRefreshPacing: { spacingMs: 0 } });
  metrics = createMetrics(t.events);
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  admin = await t.token({ sub: "admin", admin: true });
});
afterEach(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = previousSwitch;
});
afterAll(async () => {
  await t?.close();
  await sim?.close();
});

function allocationSwitch(on: boolean): void {
  process.env.SERENITY_DYNAMIC_ALLOCATION = on ? "true" : "false";
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read loosely in assertions
type Answer = { status: number; body: any };

/** Resolves with `work` once done, moving the clock over each §6 retry wait the request blocks on. */
async function pumped<T>(work: Promise<T>): Promise<T> {
  const state = track(work);
  while (!state.settled) {
    await waitFor(
      () => state.settled || clock.remainingSleeps().some((ms) => ms >= QUOTA_RETRY_INTERVAL_MS),
      { what: "the request answered or waiting to retry" },
    );
    if (!state.settled) clock.advance(QUOTA_RETRY_INTERVAL_MS);
  }
  return work;
}

/** A real HTTP request to the app. */
function http(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  return pumped(api(baseUrl, token, method, path, body));
}

interface Org {
  id: string;
  parentId: string;
  token: string;
}

async function newOrg(parent: { metered: boolean; projects: number; prompts: number }): Promise<Org> {
  const parentId = await sim.addParent({ title: `Parent ${randomUUID().slice(0, 8)}`, ...parent });
  const created = await http("POST", "/v2/orgs", admin, {
    name: `Org ${randomUUID()}`,
    parentWorkspaceId: parentId,
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  return { id, parentId, token: await t.token({ sub: `member-${id}`, orgs: [id] }) };
}

function newBrand(org: Org, name: string): Promise<Answer> {
  return http("POST", `/v2/orgs/${org.id}/brands`, org.token, {
    name,
    domain: `${name.toLowerCase().replace(/\W+/g, "-")}.example`,
    semrushMarket: { market: "US", languageCode: "en" },
  });
}

let textCounter = 0;
function writePrompts(org: Org, brandId: string, count: number): Promise<Answer> {
  const items = Array.from({ length: count }, () => ({
    text: `What is the best thing number ${++textCounter}?`,
    ...US,
  }));
  return http("POST", `/v2/orgs/${org.id}/brands/${brandId}/serenity/prompts`, org.token, { items });
}

/** Prompt items written (201 created) in a bulk answer. */
function written(answer: Answer): number {
  return (answer.body?.items ?? []).filter((item: { status: number }) => item.status === 201).length;
}

/** The simulator's call log, ids replaced so runs on different workspaces compare. */
async function callShapes(): Promise<string[]> {
  return (await sim.calls())
    .map(
      (call) =>
        `${call.method} ${call.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, ":id").replace(/\d+/g, "n")}`,
    )
    .sort();
}

async function transfersInto(workspaceIds: readonly string[]): Promise<number> {
  return (await sim.calls()).filter(
    (call) => call.path.endsWith("/resources/transfer") && workspaceIds.some((id) => call.path.includes(id)),
  ).length;
}

async function ledger(org: Org): Promise<unknown[]> {
  const page = await http("GET", `/v2/orgs/${org.id}/serenity/allocation-ledger`, org.token);
  expect(page.status).toBe(200);
  return page.body.items;
}

async function poolView(org: Org): Promise<Answer["body"]> {
  const view = await http("GET", `/v2/orgs/${org.id}/serenity/resources`, org.token);
  expect(view.status).toBe(200);
  return view.body;
}

async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const value = metric.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}

/** The issue's run: brands each with a US/en market, then `prompts` prompts per brand. */
async function issueRun(org: Org, brands = 4, prompts = 60) {
  const brandAnswers: Answer[] = [];
  for (let index = 0; index < brands; index++)
    brandAnswers.push(await newBrand(org, `Brand ${index} ${org.id}`));
  const created = brandAnswers.filter((answer) => answer.status === 201).map((answer) => answer.body);
  let promptsWritten = 0;
  for (const brand of created) promptsWritten += written(await writePrompts(org, brand.id, prompts));
  return {
    brandStatuses: brandAnswers.map((answer) => answer.status),
    subWorkspaceIds: created.map((brand) => brand.subWorkspaceId as string),
    promptsWritten,
  };
}

describe("an unmetered parent with the switch on (the issue's run)", () => {
  it("writes every brand, market and prompt with zero transfers, making exactly the calls of the switch off", async () => {
    const runWith = async (on: boolean) => {
      allocationSwitch(on);
      await sim.clearCalls();
      const org = await newOrg({ metered: false, ...TINY });
      const run = await issueRun(org);
      return { org, run, calls: await callShapes() };
    };
    // What the writes learn once per process (the catalogues), they learn before anything is compared.
    await issueRun(await newOrg({ metered: false, ...TINY }), 1, 1);
    const off = await runWith(false);
    const on = await runWith(true);

    expect(on.run.brandStatuses).toEqual([201, 201, 201, 201]);
    expect(on.run.promptsWritten).toBe(240);
    expect(await transfersInto(on.run.subWorkspaceIds)).toBe(0);
    // The same upstream calls, one for one, as the kill switch: no resources read, no transfer.
    expect(off.run).toMatchObject({ brandStatuses: [201, 201, 201, 201], promptsWritten: 240 });
    expect(on.calls).toEqual(off.calls);
    expect(on.calls.filter((call) => call.endsWith("/resources"))).toEqual([]);
    // No ledger row, and the view says allocation is not needed rather than an exhausted pool.
    expect(await ledger(on.org)).toEqual([]);
    const view = await poolView(on.org);
    expect(view).toMatchObject({
      dynamicAllocation: true,
      allocation: "notNeeded",
      metering: { state: "unmetered" },
    });
    expect(Date.parse(view.metering.asOf)).toBeLessThanOrEqual(clock.now().getTime());
  });

  it("costs a guarded write at most one extra indexed statement over the switch off (none: it rides on the org's load)", async () => {
    allocationSwitch(true);
    const org = await newOrg({ metered: false, ...TINY });
    const brand = await newBrand(org, `Counted ${org.id}`);
    expect(brand.status).toBe(201);
    const oneText = async (on: boolean) => {
      allocationSwitch(on);
      await sim.clearCalls();
      const { result, statements } = await countStatements(() =>
        callRoute(t.app, {
          method: "POST",
          url: `/v2/orgs/${org.id}/brands/${brand.body.id}/serenity/prompts`,
          token: org.token,
          body: { items: [{ text: `counted ${++textCounter}`, ...US }] },
        }),
      );
      expect(result.status).toBe(201);
      return { statements, calls: await callShapes() };
    };
    await oneText(false); // what the write learns once (market facts), it has learned
    const off = await oneText(false);
    const on = await oneText(true);
    expect(on.calls).toEqual(off.calls);
    expect(on.statements.length).toBeLessThanOrEqual(off.statements.length + 1);
    expect(on.statements.length).toBe(off.statements.length);
    // No lease, no ledger, no read written to the record (a publish's two statements write its
    // record onto the entry too, as with the switch off: docs/decisions/0046).
    expect(on.statements.some((text) => /allocation_locks|allocation_ledger|_drafted = /.test(text))).toBe(
      false,
    );

    // The instrument sees the guard: a metered org's same write costs the lock and the record.
    const metered = await newOrg({ metered: true, projects: 13, prompts: 800 });
    const meteredBrand = await newBrand(metered, `Metered counted ${metered.id}`);
    expect(meteredBrand.status).toBe(201);
    const meteredWrite = await countStatements(() =>
      callRoute(t.app, {
        method: "POST",
        url: `/v2/orgs/${metered.id}/brands/${meteredBrand.body.id}/serenity/prompts`,
        token: metered.token,
        body: { items: [{ text: `counted ${++textCounter}`, ...US }] },
      }),
    );
    expect(meteredWrite.result.status).toBe(201);
    expect(meteredWrite.statements.length).toBeGreaterThan(off.statements.length + 2);

    // Steady state (what the first write learned, it has learned): exactly the statements
    // src/allocation/README.md counts on a guarded section's hot path, over the switch off's.
    const steady = await countStatements(() =>
      callRoute(t.app, {
        method: "POST",
        url: `/v2/orgs/${metered.id}/brands/${meteredBrand.body.id}/serenity/prompts`,
        token: metered.token,
        body: { items: [{ text: `counted ${++textCounter}`, ...US }] },
      }),
    );
    expect(steady.result.status).toBe(201);
    // By kind: every statement that is not allocation's is the switch off's, one for one; of
    // allocation's, the switch off makes the publish's two (its record before the call, its window
    // restarted after), the guarded section three — each folding several of the earlier eight.
    const others = (statements: string[]) =>
      statements
        .map(statementKind)
        .filter((kind) => !ALLOCATION_TABLES.test(kind))
        .sort();
    const allocation = (statements: string[]) =>
      statements.map(statementKind).filter((kind) => ALLOCATION_TABLES.test(kind));
    expect(others(steady.statements)).toEqual(others(off.statements));
    expect(allocation(off.statements)).toEqual([
      "with insert into resource_observations", // the publish's record (the entry, then its table), before the call
      "with update resource_observations", // its window restarted, after it
    ]);
    const hotPath = allocation(steady.statements);
    expect(hotPath).toEqual([
      "with insert into allocation_locks", // take the lease; answers the last publish and the model sets
      "with insert into resource_observations", // the read, the staged units and the publish (the entry, then its table)
      "with delete from allocation_locks", // give the lease back; restart the publish's window
    ]);
    expect(hotPath.length).toBeLessThanOrEqual(4);
  });

  it("adds a model to an unmetered org's market at the switch off's cost: no announcement, no lock, no read", async () => {
    const org = await newOrg({ metered: false, projects: 13, prompts: 800 });
    const metered = await newOrg({ metered: true, projects: 13, prompts: 800 });
    /** A new brand's US market with two prompts, then one model added to it, counted. */
    const modelAdded = async (owner: Org, on: boolean) => {
      allocationSwitch(on);
      const brand = await newBrand(owner, `Models ${randomUUID().slice(0, 8)}`);
      expect(brand.status).toBe(201);
      expect(written(await writePrompts(owner, brand.body.id, 2))).toBe(2);
      const markets = `/v2/orgs/${owner.id}/brands/${brand.body.id}/serenity/markets`;
      const us = (await http("GET", markets, owner.token)).body.items.find(
        (market: { geoTargetId: number }) => market.geoTargetId === 2840,
      );
      const keys = us.models.map((model: { key: string }) => model.key);
      expect(keys).not.toContain("gpt-5");
      await sim.clearCalls();
      const { result, statements } = await countStatements(() =>
        callRoute(t.app, {
          method: "PUT",
          url: `${markets}/2840/en/models`,
          token: owner.token,
          body: { modelIds: [...keys, "gpt-5"] },
        }),
      );
      expect(result.status).toBe(200);
      return { kinds: statements.map(statementKind).sort(), texts: statements, calls: await callShapes() };
    };
    await modelAdded(org, false); // what a model add learns once (the catalogue), it has learned
    const off = await modelAdded(org, false);
    const on = await modelAdded(org, true);
    expect(on.calls).toEqual(off.calls);
    expect(on.calls.filter((call) => call.endsWith("/resources"))).toEqual([]);
    expect(on.kinds).toEqual(off.kinds);
    expect(on.texts.some((text) => ANNOUNCING.test(text) || /allocation_locks/.test(text))).toBe(false);

    // The instrument sees the guard: a metered org's model add is announced and locked.
    const guarded = await modelAdded(metered, true);
    // Its announcement's begin and end on the entry (the lease statement reads the entry too).
    expect(guarded.texts.filter((text) => ANNOUNCING.test(text))).toHaveLength(2);
    expect(guarded.texts.some((text) => /allocation_locks/.test(text))).toBe(true);
  });
});

/** A statement that writes an announcement (its begin or its end) onto an entry. */
const ANNOUNCING = /(insert into|update) resource_observations[\s\S]*\bannounced\b/;

/** The tables of allocation's write side: a statement whose kind names one is allocation's. */
const ALLOCATION_TABLES = / (allocation_locks|allocation_ledger|resource_observations)$/;

/**
 * A statement as "verb table" (a `with` statement as "with" and its first data-modifying part):
 * what the hot-path count of src/allocation/README.md names.
 */
function statementKind(text: string): string {
  const verb = text.split(" ")[0]!.toLowerCase();
  const modifying = /\b(insert into|delete from|update)\s+"?(\w+)"?/i.exec(text);
  if (verb === "with" && modifying) return `with ${modifying[1]!.toLowerCase()} ${modifying[2]}`;
  const table = /\b(?:from|into|update)\s+"?(\w+)"?/i.exec(text)?.[1] ?? "?";
  return `${verb === "select" ? "select from" : verb === "insert" ? "insert into" : verb === "delete" ? "delete from" : verb} ${table}`;
}

describe("a mixed fleet with the switch on", () => {
  it("tops the metered org up and refuses it only for a truly exhausted pool; the unmetered org is never refused", async () => {
    allocationSwitch(true);
    await sim.clearCalls();
    // Metered: 3 project units (3 brands' markets) and 600 prompt units (3 × 60 texts × 3 models).
    const metered = await newOrg({ metered: true, projects: 3, prompts: 600 });
    const unmetered = await newOrg({ metered: false, projects: 1, prompts: 0 });
    const brands = { metered: [] as Answer[], unmetered: [] as Answer[] };
    for (let index = 0; index < 4; index++) {
      brands.metered.push(await newBrand(metered, `Metered ${index} ${metered.id}`));
      brands.unmetered.push(await newBrand(unmetered, `Unmetered ${index} ${unmetered.id}`));
    }
    expect(brands.metered.map((answer) => answer.status)).toEqual([201, 201, 201, 409]);
    expect(brands.metered[3]!.body.error).toBe("orgPoolExhausted");
    expect(brands.unmetered.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    const meteredBrands = brands.metered.slice(0, 3).map((answer) => answer.body);
    const unmeteredBrands = brands.unmetered.map((answer) => answer.body);
    let meteredWritten = 0;
    let unmeteredWritten = 0;
    for (let index = 0; index < 4; index++) {
      if (meteredBrands[index])
        meteredWritten += written(await writePrompts(metered, meteredBrands[index].id, 60));
      unmeteredWritten += written(await writePrompts(unmetered, unmeteredBrands[index].id, 60));
    }
    expect(meteredWritten).toBe(180);
    expect(unmeteredWritten).toBe(240);

    // Metered: topped up just in time (a project and 200 prompt units per brand), the pool spent.
    expect(await transfersInto(meteredBrands.map((brand) => brand.subWorkspaceId))).toBeGreaterThanOrEqual(3);
    for (const brand of meteredBrands)
      expect(await sim.totals(brand.subWorkspaceId)).toEqual({ projects: 1, prompts: 200 });
    expect(await sim.totals(metered.parentId)).toEqual({ projects: 0, prompts: 0 });
    expect((await ledger(metered)).length).toBeGreaterThan(0);
    expect(await poolView(metered)).toMatchObject({
      allocation: "justInTime",
      metering: { state: "metered" },
    });
    // Unmetered: nothing allocated, nothing transferred, nothing written to the ledger.
    expect(await transfersInto(unmeteredBrands.map((brand) => brand.subWorkspaceId))).toBe(0);
    for (const brand of unmeteredBrands)
      expect(await sim.totals(brand.subWorkspaceId)).toEqual({ projects: 0, prompts: 0 });
    expect(await ledger(unmetered)).toEqual([]);
    expect(await poolView(unmetered)).toMatchObject({
      allocation: "notNeeded",
      metering: { state: "unmetered" },
    });
  });
});

describe("a parent that changes kind, followed without a restart", () => {
  it("flips to metered through the 405 safety net (topped up and retried), and back at the sampler's next read", async () => {
    allocationSwitch(true);
    const org = await newOrg({ metered: false, projects: 5, prompts: 1000 });
    const brand = await newBrand(org, `Flipping ${org.id}`);
    expect(brand.status).toBe(201);
    const subWorkspaceId = brand.body.subWorkspaceId as string;
    expect(written(await writePrompts(org, brand.body.id, 10))).toBe(10);
    expect(await sim.totals(subWorkspaceId)).toEqual({ projects: 0, prompts: 0 });

    // The contract changes: the parent meters from now on. The record still says unmetered.
    await sim.control("/quota", { workspaceId: org.parentId, metered: true });
    await sim.clearCalls();
    const toMetered = await counter("serenity_allocation_metering_flips_total", { to: "metered" });
    const answer = await writePrompts(org, brand.body.id, 10);
    expect(written(answer)).toBe(10);
    const calls = (await sim.calls()).map(
      (call) => `${call.method} ${call.path.replace(UM, "UM")} ${call.status}`,
    );
    // The write met the disguised 405, the flag was read again at once, the sub-workspace was
    // topped up (one transfer carrying both short dimensions) and the write retried.
    expect(calls.filter((call) => call.endsWith(" 405"))).toHaveLength(1);
    expect(calls.filter((call) => call.startsWith(`GET UM/v1/workspaces/${org.parentId} `))).toHaveLength(1);
    expect(calls.filter((call) => call.includes("/resources/transfer"))).toHaveLength(1);
    expect(await sim.totals(subWorkspaceId)).toEqual({ projects: 1, prompts: 100 });
    expect(await counter("serenity_allocation_metering_flips_total", { to: "metered" })).toBe(toMetered + 1);
    expect(
      t.logs.lines.some((line) => line.includes("the parent's AI metering changed") && line.includes(org.id)),
    ).toBe(true);
    expect(await poolView(org)).toMatchObject({ allocation: "justInTime", metering: { state: "metered" } });
    expect(await ledger(org)).toHaveLength(1);

    // Metered now: the next write is guarded as usual (the read, no 405).
    await sim.clearCalls();
    expect(written(await writePrompts(org, brand.body.id, 5))).toBe(5);
    expect(
      (await sim.calls()).filter((call) => call.path.endsWith(`${subWorkspaceId}/resources`)),
    ).toHaveLength(1);
    expect((await sim.calls()).filter((call) => call.status === 405)).toEqual([]);

    // Back: the parent stops metering; the sampler's next read of it (once it is older than the
    // view's max age) learns it, and allocation stops. What the brand holds stays where it is.
    await sim.control("/quota", { workspaceId: org.parentId, metered: false });
    clock.advance(31_000);
    const toUnmetered = await counter("serenity_allocation_metering_flips_total", { to: "unmetered" });
    const orgRow = {
      id: org.id,
      name: "flipping",
      parentWorkspaceId: org.parentId,
      externalId: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    await t.services.poolView.sample(orgRow, org.token);
    expect(await counter("serenity_allocation_metering_flips_total", { to: "unmetered" })).toBe(
      toUnmetered + 1,
    );
    const totals = await sim.totals(subWorkspaceId);
    await sim.clearCalls();
    expect(written(await writePrompts(org, brand.body.id, 300))).toBe(300);
    expect((await sim.calls()).filter((call) => call.path.includes("/resources"))).toEqual([]);
    expect(await sim.totals(subWorkspaceId)).toEqual(totals);
    expect(await poolView(org)).toMatchObject({ allocation: "notNeeded", metering: { state: "unmetered" } });
  });

  it("a 405 on an org recorded unmetered whose parent still meters nothing is quotaExceeded at once, after one read", async () => {
    allocationSwitch(true);
    const org = await newOrg({ metered: false, projects: 5, prompts: 1000 });
    const brand = await newBrand(org, `Still free ${org.id}`);
    expect(brand.status).toBe(201);
    // Something upstream refuses the write as over quota although the parent does not meter.
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/prompts$" },
      action: { status: 405, contentType: "text/html", body: "<html>Method Not Allowed</html>" },
      times: 1,
    });
    await sim.clearCalls();
    const answer = await writePrompts(org, brand.body.id, 1);
    expect(answer.body.items[0]).toMatchObject({ status: 409, error: { code: "quotaExceeded" } });
    const calls = await sim.calls();
    expect(calls.filter((call) => call.path.endsWith(`/v1/workspaces/${org.parentId}`))).toHaveLength(1);
    expect(calls.filter((call) => call.path.includes("/resources"))).toEqual([]);
    expect(await poolView(org)).toMatchObject({ metering: { state: "unmetered" } });
  });
});

describe("an org whose metering is not known", () => {
  it("stays unknown visibly, is guarded as metered meanwhile, and is read in the background", async () => {
    allocationSwitch(true);
    const parentId = await sim.addParent({
      title: "Unreadable parent",
      metered: false,
      projects: 5,
      prompts: 1000,
    });
    // The read at the org's creation fails (a bearer that may not see the parent: not retried).
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: `/v1/workspaces/${parentId}$` },
      action: { status: 403, body: { message: "forbidden" } },
      times: 1,
    });
    const created = await http("POST", "/v2/orgs", admin, {
      name: `Org ${randomUUID()}`,
      parentWorkspaceId: parentId,
    });
    expect(created.status).toBe(201);
    const org: Org = {
      id: created.body.id,
      parentId,
      token: await t.token({ sub: "u", orgs: [created.body.id] }),
    };
    expect(await poolView(org)).toMatchObject({
      allocation: "justInTime",
      metering: { state: "unknown", asOf: null },
    });

    // Unknown behaves as metered (a top-up on an unmetered parent can only fail, never overspend),
    // and the guarded write starts a read of the flag in the background.
    await sim.clearCalls();
    const first = await newBrand(org, `First ${org.id}`);
    expect(first.status).toBe(201);
    expect(await transfersInto([first.body.subWorkspaceId])).toBe(1);
    await t.services.poolView.settled();
    expect(await poolView(org)).toMatchObject({ allocation: "notNeeded", metering: { state: "unmetered" } });

    // Known now: the next brand is never carved.
    await sim.clearCalls();
    const second = await newBrand(org, `Second ${org.id}`);
    expect(second.status).toBe(201);
    expect((await sim.calls()).filter((call) => call.path.includes("/resources"))).toEqual([]);
  });

  it("reads a new parent's own metering when the org's parent changes", async () => {
    allocationSwitch(true);
    const org = await newOrg({ metered: true, projects: 5, prompts: 1000 });
    expect(await poolView(org)).toMatchObject({ metering: { state: "metered" } });
    const newParent = await sim.addParent({ title: "Next parent", metered: false, projects: 1, prompts: 0 });
    const patched = await http("PATCH", `/v2/orgs/${org.id}`, admin, { parentWorkspaceId: newParent });
    expect(patched.status).toBe(200);
    expect(await poolView(org)).toMatchObject({ allocation: "notNeeded", metering: { state: "unmetered" } });
    const flag = await t.db.db.execute<{ metering: string }>(
      sql`select metering from resource_observations where org_id = ${org.id}::uuid and workspace_id = ${newParent}`,
    );
    expect(flag.rows).toEqual([{ metering: "unmetered" }]);
  });
});
