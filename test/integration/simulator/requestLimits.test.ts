import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { bearerHash, type RateSnapshot } from "../../../src/simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID as GOLD } from "../../../src/simulator/seeds.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { PE, startTestSimulator, type TestSimulator, UM } from "../../support/simulator.ts";
import { projectBody } from "../../support/simulatorWorld.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * Semrush's request limits in the simulator (spec/gateway.md §7), over real HTTP. Time is a
 * ManualClock: a burst lands in one instant of the window however slow the machine is, and the
 * simulator's latency waits on the same clock, so calls stay in flight until the test moves it.
 */

const clock = new ManualClock();
let sim: TestSimulator;

beforeAll(async () => {
  sim = await startTestSimulator({
    seed: "gold",
    now: () => clock.now().getTime(),
    sleep: (ms) => clock.sleep(ms),
  });
});
afterAll(() => sim.close());
beforeEach(async () => {
  await sim.control("/reset", {});
  // A test starts in a window of its own.
  clock.advance(10_000);
});

const SEMRUSH = { perSecond: 10, concurrent: 10 };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      accept: "application/json",
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const childCreate = (token: string, title: string) =>
  send("POST", `${UM}/v2/workspaces/${GOLD}/child`, token, { title, resources: {} });

function statuses(answers: Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  return counts;
}

function rowOf(rate: RateSnapshot, token: string, group: string) {
  return rate.keys.find((row) => row.bearer === bearerHash(token) && row.group === group);
}

describe("the per-second limit, per bearer and endpoint group", () => {
  it("a burst of 30 from one bearer in one group: exactly 10 succeed, 20 get a bare 429 that changed nothing", async () => {
    await sim.control("/settings", { rateLimit: SEMRUSH });
    const before = (await sim.dump()).workspaces.length;

    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => childCreate("alice", `Burst ${i}`)),
    );

    expect(statuses(answers)).toEqual({ 200: 10, 429: 20 });
    for (const throttled of answers.filter((answer) => answer.status === 429)) {
      expect(throttled.headers.get("retry-after")).toBeNull();
      expect([...throttled.headers.keys()].filter((name) => /rate|limit/i.test(name))).toEqual([]);
      expect(throttled.headers.get("content-type")).toMatch(/^application\/json/);
      expect(JSON.parse(throttled.text)).toEqual({ message: "Too Many Requests" });
    }
    // Throttled creates wrote nothing: ten new children, the ten that were answered 200.
    const created = answers
      .filter((answer) => answer.status === 200)
      .map((answer) => JSON.parse(answer.text).id);
    const after = (await sim.dump()).workspaces;
    expect(after.length - before).toBe(10);
    expect(
      after
        .filter((workspace) => workspace.parent_id === GOLD)
        .map((w) => w.id)
        .sort(),
    ).toEqual(created.sort());
    const calls = await sim.calls();
    expect(calls.filter((entry) => entry.throttled)).toHaveLength(20);
    expect(calls.every((entry) => entry.group === "workspaces")).toBe(true);
    expect(calls.filter((entry) => entry.throttled).every((entry) => entry.status === 429)).toBe(true);
  });

  it("another bearer and another group of the same bearer are not affected; the bearer recovers after the window", async () => {
    await sim.control("/settings", { rateLimit: SEMRUSH });
    expect(
      statuses(await Promise.all(Array.from({ length: 12 }, (_, i) => childCreate("alice", `A${i}`)))),
    ).toEqual({
      200: 10,
      429: 2,
    });

    // Same instant: bob has his own budget; alice's projects and prompt tracking groups have theirs.
    expect(
      statuses(await Promise.all(Array.from({ length: 10 }, (_, i) => childCreate("bob", `B${i}`)))),
    ).toEqual({
      200: 10,
    });
    const project = await send("POST", `${PE}/v1/workspaces/${GOLD}/projects`, "alice", projectBody());
    expect(project.status).toBe(201);
    const projectId = JSON.parse(project.text).id as string;
    const tags = await send(
      "GET",
      `${PE}/v2/workspaces/${GOLD}/projects/${projectId}/aio/tags?parent_id=&search=&draft=true`,
      "alice",
    );
    expect(tags.status).toBe(200);
    expect((await childCreate("alice", "Still throttled")).status).toBe(429);

    clock.advance(999);
    expect((await childCreate("alice", "One ms early")).status).toBe(429);
    clock.advance(1);
    expect((await childCreate("alice", "After the window")).status).toBe(200);

    const rate = await sim.rate();
    expect(rowOf(rate, "alice", "workspaces")).toMatchObject({
      started: 11,
      throttled: 4,
      perSecondPeak: 10,
    });
    expect(rowOf(rate, "bob", "workspaces")).toMatchObject({ started: 10, throttled: 0, perSecondPeak: 10 });
    expect(rowOf(rate, "alice", "projects")).toMatchObject({ started: 1, throttled: 0 });
    expect(rowOf(rate, "alice", "promptTracking")).toMatchObject({ started: 1, throttled: 0 });
    expect(JSON.stringify(rate)).not.toMatch(/alice|bob/);
  });

  it("throttled prompt writes stage no units, and a throttled call spends no fault rule", async () => {
    const project = await send("POST", `${PE}/v1/workspaces/${GOLD}/projects`, "alice", projectBody());
    const projectId = JSON.parse(project.text).id as string;
    await sim.control("/settings", { rateLimit: SEMRUSH });
    clock.advance(1000);

    const promptsPath = `${PE}/v3/workspaces/${GOLD}/projects/${projectId}/aio/prompts`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send("POST", promptsPath, "alice", { items: [{ name: `prompt ${i}` }], tag_ids: [] }),
      ),
    );
    expect(statuses(answers)).toEqual({ 201: 10, 429: 20 });
    const dumped = (await sim.dump()).projects.find((entry) => entry.id === projectId)!;
    expect(dumped.prompts).toHaveLength(10);
    const parent = (await sim.dump()).workspaces.find((workspace) => workspace.id === GOLD)!;
    // One model per new project: ten texts staged ten prompt units, not thirty.
    expect(parent.resources.prompts.drafted).toBe(10);

    await sim.control("/faults", {
      match: { method: "GET", pathPattern: "/v1/languages$" },
      action: { status: 503, body: "down" },
      times: 1,
    });
    await sim.control("/settings", { rateLimit: { perSecond: 1, concurrent: 0 } });
    clock.advance(1000);
    expect((await send("GET", `${PE}/v1/ai_models`, "carol")).status).toBe(200);
    // carol's second projects call in the window is throttled before the fault rule is looked at…
    expect((await send("GET", `${PE}/v1/languages`, "carol")).status).toBe(429);
    clock.advance(1000);
    // …so the rule is still there for the next admitted call.
    expect((await send("GET", `${PE}/v1/languages`, "carol")).status).toBe(503);
  });
});

describe("the concurrency limit", () => {
  it("holds with the simulator's latency: calls are in flight from arrival until answered", async () => {
    await sim.control("/settings", { rateLimit: { perSecond: 0, concurrent: 10 }, latencyMs: 200 });
    const pending = Array.from({ length: 15 }, () => send("GET", `${PE}/v1/languages`, "alice"));
    const settled: Answer[] = [];
    for (const answer of pending) void answer.then((value) => settled.push(value));

    // Ten admitted wait out their latency on the clock; five found ten in flight and were answered at once.
    await waitFor(() => clock.pendingSleeps === 10 && settled.length === 5, {
      what: "10 in flight, 5 throttled",
    });
    expect(statuses(settled)).toEqual({ 429: 5 });
    expect(rowOf(await sim.rate(), "alice", "projects")).toMatchObject({
      started: 10,
      throttled: 5,
      inFlight: 10,
      inFlightPeak: 10,
    });
    // A different bearer is not held back by alice's calls in flight (its call waits its latency too).
    const bob = send("GET", `${PE}/v1/languages`, "bob");
    await waitFor(() => clock.pendingSleeps === 11, { what: "bob's call in flight" });

    clock.advance(200);
    const answers = await Promise.all(pending);
    expect(statuses(answers)).toEqual({ 200: 10, 429: 5 });
    expect((await bob).status).toBe(200);
    await waitFor(async () => rowOf(await sim.rate(), "alice", "projects")?.inFlight === 0, {
      what: "alice's calls released",
    });
    const next = send("GET", `${PE}/v1/languages`, "alice");
    await clock.untilSleeping(1);
    clock.advance(200);
    expect((await next).status).toBe(200);
  });

  it("counts a fault's delay as time in flight, and a dropped connection frees its slot", async () => {
    await sim.control("/settings", { rateLimit: { perSecond: 0, concurrent: 1 } });
    await sim.control("/faults", {
      match: { method: "GET", pathPattern: "/v1/languages$" },
      action: { delayMs: 5000 },
      times: 1,
    });
    const slow = send("GET", `${PE}/v1/languages`, "alice");
    await clock.untilSleeping(1);
    expect((await send("GET", `${PE}/v1/ai_models`, "alice")).status).toBe(429);
    clock.advance(5000);
    expect((await slow).status).toBe(200);

    await sim.control("/faults", {
      match: { method: "GET", pathPattern: "/v1/languages$" },
      action: { dropConnection: true },
      times: 1,
    });
    await expect(send("GET", `${PE}/v1/languages`, "alice")).rejects.toThrow();
    await waitFor(async () => rowOf(await sim.rate(), "alice", "projects")?.inFlight === 0, {
      what: "the dropped call released",
    });
    expect((await send("GET", `${PE}/v1/languages`, "alice")).status).toBe(200);
  });
});

describe("GET /__sim/rate and the defaults", () => {
  it("with no limit set (the default) nothing is throttled and the peaks still measure the client", async () => {
    expect((await sim.rate()).rateLimit).toEqual({ perSecond: 0, concurrent: 0 });
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => send("GET", `${PE}/v1/languages`, "alice")),
    );
    expect(statuses(answers)).toEqual({ 200: 30 });
    const row = rowOf(await sim.rate(), "alice", "projects")!;
    expect(row).toMatchObject({ started: 30, throttled: 0, perSecondPeak: 30 });
    expect(row.inFlightPeak).toBeGreaterThanOrEqual(1);
    expect(row.inFlightPeak).toBeLessThanOrEqual(30);
  });

  it("DELETE /__sim/rate starts the counts again; the limit keeps being enforced across it", async () => {
    await sim.control("/settings", { rateLimit: SEMRUSH });
    await Promise.all(Array.from({ length: 12 }, () => send("GET", `${PE}/v1/languages`, "alice")));
    expect(rowOf(await sim.rate(), "alice", "projects")).toMatchObject({ started: 10, throttled: 2 });

    await sim.clearRate();
    const cleared = await sim.rate();
    expect(cleared.keys).toEqual([]);
    expect(cleared.since).toBe(clock.now().toISOString());
    // Still the same second upstream: the window was not reset by clearing the counts.
    expect((await send("GET", `${PE}/v1/languages`, "alice")).status).toBe(429);
    clock.advance(1000);
    expect((await send("GET", `${PE}/v1/languages`, "alice")).status).toBe(200);
    expect(rowOf(await sim.rate(), "alice", "projects")).toMatchObject({
      started: 1,
      throttled: 1,
      perSecondPeak: 1,
      inFlight: 0,
    });
  });

  it("settings: a field left out is 0 (off), bad values are refused, reset restores the initial limits", async () => {
    await sim.control("/settings", { rateLimit: { perSecond: 5 } });
    expect(((await sim.control("/settings")) as { rateLimit: unknown }).rateLimit).toEqual({
      perSecond: 5,
      concurrent: 0,
    });
    await expect(sim.control("/settings", { rateLimit: { perSecond: -1 } })).rejects.toThrow(/400/);
    await expect(sim.control("/settings", { rateLimit: { burst: 3 } })).rejects.toThrow(/400/);
    await sim.control("/reset", {});
    expect(((await sim.control("/settings")) as { rateLimit: unknown }).rateLimit).toEqual({
      perSecond: 0,
      concurrent: 0,
    });
  });

  it("calls without a bearer are not counted (no account) and still get 401", async () => {
    await sim.control("/settings", { rateLimit: { perSecond: 1, concurrent: 1 } });
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${sim.url}${UM}/v1/workspaces/${GOLD}/resources`);
      expect(response.status).toBe(401);
    }
    expect((await sim.rate()).keys).toEqual([]);
  });
});
