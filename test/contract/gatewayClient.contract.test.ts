import { setTimeout as sleep } from "node:timers/promises";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { type Clock, systemClock } from "../../src/domain/clock.ts";
import { GatewayError, type GatewayErrorKind } from "../../src/gateway/errors.ts";
import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { isPublishedStatus } from "../../src/gateway/projectStatus.ts";
import { MAX_THROTTLED_RETRIES } from "../../src/gateway/retryPolicy.ts";
import type { Language, Project, Workspace } from "../../src/gateway/types.ts";
import { isReadyStatus, isTerminalStatus } from "../../src/gateway/workspaceStatus.ts";
import { EventBus, type ServiceEvents } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";
import {
  type ContractTarget,
  realGatewayConfigured,
  realGatewayTarget,
  RecordingClock,
  simulatorTarget,
} from "../support/contractTarget.ts";
import type { SimControls } from "../support/simControls.ts";
import { UM } from "../support/simulator.ts";

/**
 * The gateway client's contract (spec/gateway.md §2, §5, §1): one suite, run against the in-process
 * simulator over real HTTP always, and against a real gateway when SEMRUSH_CONTRACT_BASE_URL and
 * SEMRUSH_CONTRACT_TOKEN (+ SEMRUSH_CONTRACT_PARENT_WORKSPACE_ID) are set. Cases that need the
 * simulator's fault rules or call log run against the simulator only.
 */

const NGINX_405 =
  "<html>\r\n<head><title>405 Not Allowed</title></head>\r\n<body>\r\n<center><h1>405 Not Allowed</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
const UNKNOWN_WORKSPACE = "00000000-0000-4000-8000-00000000dead";
const UNKNOWN_PROJECT = "00000000-0000-4000-8000-00000000beef";

interface ContractWorld {
  target: ContractTarget;
  client: GatewayClient;
  clock: Clock;
  requests: ServiceEvents["gateway.request"][];
  quota: boolean[];
}

async function openContractWorld(makeTarget: () => Promise<ContractTarget>): Promise<ContractWorld> {
  const target = await makeTarget();
  const events = new EventBus();
  const requests: ContractWorld["requests"] = [];
  const quota: boolean[] = [];
  events.on("gateway.request", (e) => requests.push(e));
  events.on("gateway.quotaClassification", (e) => quota.push(e.matched));
  // The simulator's answers are instant; real backoff waits only make sense against a real gateway.
  const clock = target.sim ? new RecordingClock() : systemClock;
  const client = createGatewayClient({
    projectsBaseUrl: target.baseUrl,
    usersBaseUrl: target.baseUrl,
    events,
    logger: createLogger({ level: "silent" }),
    clock,
  });
  return { target, client, clock, requests, quota };
}

async function failureOf(promise: Promise<unknown>): Promise<GatewayError> {
  const outcome = await promise.then(
    () => new Error("expected the call to fail"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(GatewayError);
  return outcome as GatewayError;
}

async function poll<T>(
  target: ContractTarget,
  read: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<T> {
  const attempts = target.sim ? 20 : 60;
  let value = await read();
  for (let i = 1; i < attempts && !done(value); i += 1) {
    if (target.pollDelayMs > 0) await sleep(target.pollDelayMs);
    value = await read();
  }
  return value;
}

/** A transfer may 422 `workspace not ready` for a while after the status reads `created` (§3). */
async function transferWhenSettled(
  h: ContractWorld,
  ws: string,
  totals: { projects?: number; prompts?: number },
) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await h.client.users.transferResources(h.target.token, ws, totals);
    } catch (error) {
      if (!(error instanceof GatewayError && error.kind === "workspaceNotReady") || attempt >= 20)
        throw error;
      if (h.target.pollDelayMs > 0) await sleep(h.target.pollDelayMs);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every endpoint of §2, plus the classification rows a real gateway produces by itself.
// ---------------------------------------------------------------------------------------------

function defineEndpointContract(label: string, makeTarget: () => Promise<ContractTarget>): void {
  describe(`gateway client contract: every endpoint (${label})`, () => {
    let h: ContractWorld;
    let token: string;
    let parent: string;
    let child: Workspace | undefined;
    let project: Project | undefined;
    let language: Language;
    const title = `serenity-contract-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;
    const state: {
      assignmentId?: string;
      originTagId?: string;
      aiTagId?: string;
      promptId?: string;
    } = {};

    beforeAll(async () => {
      h = await openContractWorld(makeTarget);
      token = h.target.token;
      parent = h.target.parentWorkspaceId;
    });
    afterAll(async () => {
      if (h) {
        // Clean up upstream even when a step failed half-way (the delete cascades).
        if (project && child)
          await h.client.projects.deleteProject(token, child.id, project.id).catch(() => undefined);
        if (child) await h.client.users.deleteWorkspace(token, child.id).catch(() => undefined);
        await h.client.close();
        await h.target.close();
      }
    });

    function ws(): string {
      if (!child) throw new Error("the sub-workspace step did not run");
      return child.id;
    }
    function pid(): string {
      if (!project) throw new Error("the project step did not run");
      return project.id;
    }

    it("lists the languages catalogue", async () => {
      const page = await h.client.projects.listLanguages(token);
      expect(page.total).toBeGreaterThan(0);
      expect(page.items.length).toBeGreaterThan(0);
      const english = page.items.find((l) => l.name === "English");
      expect(english).toBeDefined();
      language = page.items.find((l) => l.name === "French") ?? (english as Language);
      expect(h.requests.at(-1)).toMatchObject({
        gateway: "pe",
        method: "GET",
        route: "/v1/languages",
        status: 200,
      });
    });

    it("lists the AI model catalogue with paging", async () => {
      const page = await h.client.projects.listAiModels(token, { page: 1, limit: 50 });
      expect(page.page).toBe(1);
      expect(page.items.length).toBeGreaterThan(0);
      for (const model of page.items) expect(model.key).not.toBe("");
      if (h.target.sim) expect(page.items.map((m) => m.key)).toContain("search-gpt");
    });

    it("reads the parent workspace with its metering switch, and its resources", async () => {
      const details = await h.client.users.getWorkspace(token, parent);
      expect(details.id).toBe(parent);
      expect(typeof details.aiLimitsEnabled).toBe("boolean");
      const resources = await h.client.users.getResources(token, parent);
      for (const usage of [resources.projects, resources.prompts]) {
        expect(usage.total).toBeGreaterThanOrEqual(0);
        expect(usage.used).toBeGreaterThanOrEqual(0);
        expect(usage.drafted).toBeGreaterThanOrEqual(0);
      }
      if (h.target.sim) {
        expect(details).toMatchObject({ parentId: null, status: "created", aiLimitsEnabled: true });
        expect(resources).toEqual({
          projects: { used: 0, drafted: 0, total: 13 },
          prompts: { used: 0, drafted: 0, total: 800 },
        });
      }
    });

    it("creates a sub-workspace under the parent and sees it settle", async () => {
      child = await h.client.users.createSubWorkspace(token, parent, { title });
      expect(child).toMatchObject({ title, parentId: parent });
      expect(isTerminalStatus(child.status)).toBe(false);
      if (h.target.sim) expect(child.status).toBe("not ready");
      const status = await poll(h.target, () => h.client.users.getStatus(token, ws()), isReadyStatus);
      expect(isReadyStatus(status)).toBe(true);
    });

    it("finds the sub-workspace in the parent's family", async () => {
      const family = await h.client.users.getFamily(token, parent);
      expect(family.map((w) => w.id)).toContain(parent);
      expect(family.find((w) => w.id === ws())).toMatchObject({ title, parentId: parent });
    });

    it("transfers an absolute allocation onto the sub-workspace; repeating it moves nothing", async () => {
      const parentBefore = await h.client.users.getResources(token, parent);
      await transferWhenSettled(h, ws(), { projects: 1, prompts: 100 });
      const resources = await h.client.users.getResources(token, ws());
      expect(resources.projects.total).toBe(1);
      expect(resources.prompts.total).toBe(100);
      const parentAfter = await h.client.users.getResources(token, parent);
      expect(parentAfter.projects.total).toBe(parentBefore.projects.total - 1);
      expect(parentAfter.prompts.total).toBe(parentBefore.prompts.total - 100);
      await h.client.users.transferResources(token, ws(), { projects: 1, prompts: 100 });
      expect(await h.client.users.getResources(token, parent)).toEqual(parentAfter);
    });

    it("classifies a transfer beyond the parent's free units as poolExhausted (422)", async () => {
      const error = await failureOf(h.client.users.transferResources(token, ws(), { prompts: 10_000_000 }));
      expect(error).toMatchObject({ kind: "poolExhausted", status: 422, method: "POST" });
      expect(error.route).toBe("/v2/workspaces/{ws}/resources/transfer");
      expect((await h.client.users.getResources(token, ws())).prompts.total).toBe(100);
    });

    it("lists no projects in the new sub-workspace", async () => {
      const page = await h.client.projects.listProjects(token, ws());
      expect(page.items).toEqual([]);
      expect(page.total).toBe(0);
    });

    it("creates a draft AI project and reads its draft view", async () => {
      project = await h.client.projects.createProject(token, ws(), {
        name: `${title} FR`,
        brandNameDisplay: "Contract Brand",
        brandNames: ["Contract Brand"],
        domain: "contract-brand.example",
        countryCode: "FR",
        locationId: 2250,
        locationName: "France",
        languageId: language.id,
      });
      expect(project.id).not.toBe("");
      const read = await h.client.projects.getProject(token, ws(), pid());
      expect(read).toMatchObject({
        id: pid(),
        domain: "contract-brand.example",
        countryCode: "fr",
        locationId: 2250,
      });
      expect(isPublishedStatus(read.publishStatus)).toBe(false);
      if (h.target.sim) expect(read).toMatchObject({ publishStatus: "draft", languageCode: "fr" });
      const listed = await poll(
        h.target,
        () => h.client.projects.listProjects(token, ws()),
        (page) => page.items.some((p) => p.id === pid()),
      );
      expect(listed.items.map((p) => p.id)).toContain(pid());
    });

    it("classifies an unknown project as gone (404)", async () => {
      const error = await failureOf(h.client.projects.getProject(token, ws(), UNKNOWN_PROJECT));
      expect(error).toMatchObject({ kind: "gone", status: 404, method: "GET" });
      expect(error.route).toBe("/v1/workspaces/{ws}/projects/{pid}");
    });

    it("patches the project's primary URL", async () => {
      const patched = await h.client.projects.patchProject(token, ws(), pid(), {
        primaryUrl: "https://contract-brand.example/",
      });
      expect(patched.id).toBe(pid());
      expect((await h.client.projects.getProject(token, ws(), pid())).primaryUrl).toBe(
        "https://contract-brand.example/",
      );
    });

    it("lists, adds (v2) and sees a project AI model", async () => {
      const before = await h.client.projects.listProjectAiModels(token, ws(), pid());
      const catalogue = await h.client.projects.listAiModels(token, { page: 1, limit: 50 });
      const assigned = new Set(before.map((a) => a.model.id));
      const model = catalogue.items.find((m) => !assigned.has(m.id));
      expect(model).toBeDefined();
      const added = await h.client.projects.addProjectAiModel(token, ws(), pid(), model?.id ?? "");
      state.assignmentId = added.assignmentId;
      const after = await h.client.projects.listProjectAiModels(token, ws(), pid());
      expect(after.find((a) => a.assignmentId === added.assignmentId)?.model.key).toBe(model?.key);
    });

    it("creates root and child tags and lists them by parent", async () => {
      const [origin] = await h.client.projects.createTags(token, ws(), pid(), { names: ["origin"] });
      expect(origin).toMatchObject({ name: "origin", parentId: null });
      state.originTagId = origin?.id;
      const [ai] = await h.client.projects.createTags(token, ws(), pid(), {
        names: ["ai"],
        parentId: state.originTagId,
      });
      expect(ai).toMatchObject({ name: "ai", parentId: state.originTagId });
      state.aiTagId = ai?.id;
      const roots = await h.client.projects.listTags(token, ws(), pid());
      expect(roots.map((t) => t.name)).toContain("origin");
      const children = await h.client.projects.listTags(token, ws(), pid(), { parentId: state.originTagId });
      expect(children.map((t) => t.id)).toEqual([state.aiTagId]);
      expect(await h.client.projects.listTags(token, ws(), pid(), { search: "orig" })).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: state.originTagId })]),
      );
    });

    it("creates prompts (v3), de-duplicating by text", async () => {
      const text = "Which contract brand is best for testing?";
      const first = await h.client.projects.createPrompts(token, ws(), pid(), {
        texts: [text],
        createdBy: "contract-suite",
      });
      expect(first.items).toHaveLength(1);
      expect(first.items[0]).toMatchObject({ text, isNew: true });
      expect(first.existingCount).toBe(0);
      state.promptId = first.items[0]?.id;
      const again = await h.client.projects.createPrompts(token, ws(), pid(), {
        texts: [text],
        createdBy: "contract-suite",
      });
      expect(again.items[0]).toMatchObject({ id: state.promptId, isNew: false });
      expect(again.existingCount).toBe(1);
    });

    it("lists prompts by tags: drafts only with draft=true", async () => {
      const drafts = await h.client.projects.listPrompts(token, ws(), pid(), { draft: true });
      expect(drafts.items.map((p) => p.id)).toContain(state.promptId);
      expect(drafts.items.find((p) => p.id === state.promptId)?.metadata?.createdBy).toBe("contract-suite");
      const published = await h.client.projects.listPrompts(token, ws(), pid());
      expect(published.items.map((p) => p.id)).not.toContain(state.promptId);
    });

    it("puts tags on a prompt", async () => {
      await h.client.projects.setPromptTags(token, ws(), pid(), [
        { promptId: state.promptId ?? "", tagIds: [state.aiTagId ?? ""], replace: true },
      ]);
      const byTag = await h.client.projects.listPrompts(token, ws(), pid(), {
        draft: true,
        tagIds: [state.aiTagId ?? ""],
      });
      const prompt = byTag.items.find((p) => p.id === state.promptId);
      expect(prompt?.tags.map((t) => t.id)).toContain(state.aiTagId);
    });

    it("publishes the project (202) and observes it live", async () => {
      await h.client.projects.publishProject(token, ws(), pid());
      const live = await poll(
        h.target,
        () => h.client.projects.getProject(token, ws(), pid()),
        (p) => isPublishedStatus(p.publishStatus),
      );
      expect(isPublishedStatus(live.publishStatus)).toBe(true);
      const published = await h.client.projects.listPrompts(token, ws(), pid());
      expect(published.items.find((p) => p.id === state.promptId)?.isNew).toBe(false);
    });

    it("reads the brand-topics catalogue", async () => {
      const topics = await h.client.projects.getBrandTopics(token, ws(), {
        domain: "contract-brand.example",
        country: "fr",
      });
      expect(Array.isArray(topics)).toBe(true);
      // Entries without text read as "" (the catalogue has gaps; generation's bounding drops them).
      for (const topic of topics) expect(typeof topic.topic).toBe("string");
      if (h.target.sim) {
        expect(topics.some((topic) => topic.topic !== "" && topic.prompts.length > 0)).toBe(true);
        expect(topics.some((topic) => topic.topic === "")).toBe(true);
      }
    });

    it("deletes prompts (v2)", async () => {
      await h.client.projects.deletePrompts(token, ws(), pid(), [state.promptId ?? ""]);
      const drafts = await h.client.projects.listPrompts(token, ws(), pid(), { draft: true });
      expect(drafts.items.map((p) => p.id)).not.toContain(state.promptId);
    });

    it("deletes a project AI model by assignment id", async () => {
      await h.client.projects.deleteProjectAiModels(token, ws(), pid(), [state.assignmentId ?? ""]);
      const after = await h.client.projects.listProjectAiModels(token, ws(), pid());
      expect(after.map((a) => a.assignmentId)).not.toContain(state.assignmentId);
    });

    it("deletes the project; a second delete is gone", async () => {
      await h.client.projects.deleteProject(token, ws(), pid());
      const error = await failureOf(h.client.projects.getProject(token, ws(), pid()));
      expect(error.kind).toBe("gone");
      const again = await failureOf(h.client.projects.deleteProject(token, ws(), pid()));
      expect(again).toMatchObject({ kind: "gone", status: 404, method: "DELETE" });
      project = undefined;
    });

    it("classifies a workspace outside the token's reach as forbidden (403)", async () => {
      const error = await failureOf(h.client.users.getResources(token, UNKNOWN_WORKSPACE));
      expect(error).toMatchObject({ kind: "forbidden", status: 403, method: "GET" });
      expect(error.route).toBe("/v1/workspaces/{ws}/resources");
    });

    it("classifies a rejected bearer as unauthorized (401)", async () => {
      const rejected = "contract-revoked-token";
      await h.target.sim?.revokeToken(rejected);
      const error = await failureOf(h.client.users.getStatus(rejected, parent));
      expect(error).toMatchObject({ kind: "unauthorized", status: 401 });
    });

    it("fails unauthorized without a bearer, before sending anything", async () => {
      const before = h.requests.length;
      const error = await failureOf(h.client.users.getResources("", parent));
      expect(error).toMatchObject({ kind: "unauthorized", status: 401 });
      expect(h.requests.length).toBe(before);
    });

    it("deletes the sub-workspace (clean-up path)", async () => {
      await h.client.users.deleteWorkspace(token, ws());
      const family = await poll(
        h.target,
        () => h.client.users.getFamily(token, parent),
        (members) => !members.some((w) => w.id === child?.id && w.status !== "deleting"),
      );
      expect(family.filter((w) => w.id === child?.id && w.status !== "deleting")).toEqual([]);
      child = undefined;
    });

    it("answers the readiness probe", async () => {
      expect(await h.client.reachable(token)).toBe(true);
    });
  });
}

defineEndpointContract("simulator", simulatorTarget);

// Defined only when configured (rather than skipped), so normal runs report no skipped tests.
if (realGatewayConfigured) defineEndpointContract("real gateway", realGatewayTarget);

// ---------------------------------------------------------------------------------------------
// Simulator only: classification rows driven by fault rules, retries and timeouts via the call log.
// ---------------------------------------------------------------------------------------------

describe("gateway client contract: faults, retries and timeouts (simulator)", () => {
  let h: ContractWorld;
  let sim: SimControls;
  let token: string;
  let parent: string;
  const STATUS_PATH = `${UM}/v1/workspaces/[^/]+/status$`;
  const CHILD_PATH = `${UM}/v2/workspaces/[^/]+/child$`;

  beforeAll(async () => {
    h = await openContractWorld(simulatorTarget);
    sim = h.target.sim as SimControls;
    token = h.target.token;
    parent = h.target.parentWorkspaceId;
  });
  afterAll(async () => {
    await h?.client.close();
    await h?.target.close();
  });
  beforeEach(async () => {
    await sim.reset();
    (h.clock as RecordingClock).waits.length = 0;
    h.quota.length = 0;
  });

  async function callsTo(pattern: string) {
    const regex = new RegExp(pattern);
    return (await sim.calls()).filter((call) => regex.test(call.path));
  }

  const rows: [string, SimFault, GatewayErrorKind, number][] = [
    ["401 JSON", { status: 401, body: { detail: "Not authenticated" } }, "unauthorized", 401],
    ["403 JSON", { status: 403, body: { message: "invalid access attempt" } }, "forbidden", 403],
    ["404 text/plain", { status: 404, body: "not found", contentType: "text/plain" }, "gone", 404],
    ["405 HTML", { status: 405, body: NGINX_405, contentType: "text/html" }, "meteredQuota", 405],
    ["405 JSON", { status: 405, body: { message: "Method Not Allowed" } }, "methodNotAllowed", 405],
    ["409 text", { status: 409, body: "conflict", contentType: "text/plain" }, "conflict", 409],
    [
      "422 insufficient",
      { status: 422, body: { message: "insufficient available units in subscription" } },
      "poolExhausted",
      422,
    ],
    ["422 not ready", { status: 422, body: { message: "workspace not ready" } }, "workspaceNotReady", 422],
    ["422 other", { status: 422, body: { message: "title is required" } }, "badRequest", 422],
    ["400", { status: 400, body: { message: "invalid language" } }, "badRequest", 400],
    ["429 (retries until the cap or the deadline)", { status: 429, body: "" }, "rateLimited", 429],
    ["500 (retries exhausted)", { status: 500, body: "Internal Server Error" }, "unavailable", 500],
    [
      "502 HTML (retries exhausted)",
      { status: 502, body: "<html>bad gateway</html>", contentType: "text/html" },
      "unavailable",
      502,
    ],
    ["503 (retries exhausted)", { status: 503, body: "" }, "unavailable", 503],
  ];
  type SimFault = { status: number; body: unknown; contentType?: string };

  it.each(rows)("classifies %s as %s", async (_name, action, kind, status) => {
    await sim.addFault({ match: { pathPattern: STATUS_PATH }, action });
    const error = await failureOf(h.client.users.getStatus(token, parent));
    expect(error).toMatchObject({ kind, status, method: "GET", gateway: "um" });
    expect(error.route).toBe("/v1/workspaces/{ws}/status");
    // The upstream body never reaches the message.
    expect(error.message).toBe(`Gateway um GET /v1/workspaces/{ws}/status failed: ${kind} (${status})`);
    // A 429 is retried within the caller's deadline (ADR 0019); this clock does not move, so the
    // throttled-retry cap ends it. A 5xx gets the two quick retries.
    const attempts = status === 429 ? 1 + MAX_THROTTLED_RETRIES : status >= 500 ? 3 : 1;
    expect(await callsTo(STATUS_PATH)).toHaveLength(attempts);
  });

  it("counts every 405 in the quota classifier, matched or not", async () => {
    await sim.addFault({
      match: { pathPattern: STATUS_PATH },
      action: { status: 405, body: NGINX_405, contentType: "text/html" },
      times: 1,
    });
    await failureOf(h.client.users.getStatus(token, parent));
    await sim.addFault({
      match: { pathPattern: STATUS_PATH },
      action: { status: 405, body: { message: "Method Not Allowed" } },
      times: 1,
    });
    await failureOf(h.client.users.getStatus(token, parent));
    expect(h.quota).toEqual([true, false]);
  });

  it("classifies the simulator's real over-quota rejection (HTML 405) as meteredQuota", async () => {
    const child = await h.client.users.createSubWorkspace(token, parent, { title: "quota-child" });
    await poll(h.target, () => h.client.users.getStatus(token, child.id), isReadyStatus);
    // A metered sub-workspace with no allocation refuses its first project.
    const error = await failureOf(
      h.client.projects.createProject(token, child.id, {
        name: "over quota",
        brandNameDisplay: "B",
        brandNames: ["B"],
        domain: "b.example",
        countryCode: "us",
        locationId: 2840,
        locationName: "United States",
        languageId: (await h.client.projects.listLanguages(token)).items[0]?.id ?? "1",
      }),
    );
    expect(error).toMatchObject({ kind: "meteredQuota", status: 405, method: "POST" });
    expect(error.route).toBe("/v1/workspaces/{ws}/projects");
    expect(h.quota).toEqual([true]);
  });

  it("retries a POST on 429, honouring Retry-After", async () => {
    await sim.addFault({
      match: { method: "POST", pathPattern: CHILD_PATH },
      action: { status: 429 },
      times: 1,
    });
    const child = await h.client.users.createSubWorkspace(token, parent, { title: "after-429" });
    expect(child.title).toBe("after-429");
    expect((await callsTo(CHILD_PATH)).map((c) => c.status)).toEqual([429, 200]);
    expect((h.clock as RecordingClock).waits).toEqual([1000]);
  });

  it("retries a GET on 5xx and succeeds", async () => {
    await sim.addFault({
      match: { method: "GET", pathPattern: STATUS_PATH },
      action: { status: 503 },
      times: 2,
    });
    expect(await h.client.users.getStatus(token, parent)).toBe("created");
    expect((await callsTo(STATUS_PATH)).map((c) => c.status)).toEqual([503, 503, 200]);
    const waits = (h.clock as RecordingClock).waits;
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(100);
    expect(waits[0]).toBeLessThanOrEqual(200);
    expect(waits[1]).toBeGreaterThanOrEqual(200);
    expect(waits[1]).toBeLessThanOrEqual(400);
  });

  it("never retries a POST on 5xx", async () => {
    await sim.addFault({
      match: { method: "POST", pathPattern: CHILD_PATH },
      action: { status: 500 },
      times: 1,
    });
    const error = await failureOf(h.client.users.createSubWorkspace(token, parent, { title: "no-retry" }));
    expect(error).toMatchObject({ kind: "unavailable", status: 500, method: "POST" });
    expect((await callsTo(CHILD_PATH)).map((c) => c.status)).toEqual([500]);
    expect((h.clock as RecordingClock).waits).toEqual([]);
  });

  it("surfaces a 504 after commit on create as unavailable, unretried, with the workspace adoptable from family", async () => {
    await sim.addFault({
      match: { method: "POST", pathPattern: CHILD_PATH },
      action: { afterCommit504: true },
      times: 1,
    });
    const error = await failureOf(
      h.client.users.createSubWorkspace(token, parent, { title: "committed-anyway" }),
    );
    expect(error).toMatchObject({ kind: "unavailable", status: 504 });
    expect(await callsTo(CHILD_PATH)).toHaveLength(1);
    const family = await h.client.users.getFamily(token, parent);
    expect(family.filter((w) => w.title === "committed-anyway")).toHaveLength(1);
  });

  it("times out a slow GET as 504 and retries it", async () => {
    const fast = createGatewayClient({
      projectsBaseUrl: h.target.baseUrl,
      usersBaseUrl: h.target.baseUrl,
      events: new EventBus(),
      logger: createLogger({ level: "silent" }),
      clock: new RecordingClock(),
      // Far apart, so no machine's load decides the outcome: a delayed answer comes long after the
      // client gave up (its timer started first and is shorter), and the retry has 1.5 s to answer.
      timeoutMs: 1_500,
    });
    try {
      await sim.addFault({
        match: { method: "GET", pathPattern: STATUS_PATH },
        action: { delayMs: 20_000 },
        times: 1,
      });
      expect(await fast.users.getStatus(token, parent)).toBe("created");
      await sim.addFault({ match: { method: "GET", pathPattern: STATUS_PATH }, action: { delayMs: 20_000 } });
      const error = await failureOf(fast.users.getStatus(token, parent));
      expect(error).toMatchObject({ kind: "unavailable", status: 504 });
    } finally {
      await fast.close();
    }
  });

  it("times out a slow POST as 504 without retrying it", async () => {
    const events = new EventBus();
    const attempts: number[] = [];
    events.on("gateway.request", (e) => attempts.push(e.status));
    const fast = createGatewayClient({
      projectsBaseUrl: h.target.baseUrl,
      usersBaseUrl: h.target.baseUrl,
      events,
      logger: createLogger({ level: "silent" }),
      clock: new RecordingClock(),
      timeoutMs: 100,
    });
    try {
      await sim.addFault({ match: { method: "POST", pathPattern: CHILD_PATH }, action: { delayMs: 400 } });
      const error = await failureOf(fast.users.createSubWorkspace(token, parent, { title: "slow" }));
      expect(error).toMatchObject({ kind: "unavailable", status: 504, method: "POST" });
      // One attempt and no retry wait: the client never re-sends a POST (whether the first one
      // lands upstream after the client gave up is the upstream's business, not observable here).
      expect(attempts).toEqual([504]);
    } finally {
      await fast.close();
    }
  });

  it("retries a dropped connection on GET; never on POST", async () => {
    await sim.addFault({
      match: { method: "GET", pathPattern: STATUS_PATH },
      action: { dropConnection: true },
      times: 1,
    });
    expect(await h.client.users.getStatus(token, parent)).toBe("created");
    expect((await callsTo(STATUS_PATH)).map((c) => c.status)).toEqual([0, 200]);

    await sim.addFault({
      match: { method: "POST", pathPattern: CHILD_PATH },
      action: { dropConnection: true },
      times: 1,
    });
    const error = await failureOf(h.client.users.createSubWorkspace(token, parent, { title: "dropped" }));
    expect(error).toMatchObject({ kind: "unavailable", status: 0 });
    expect((await callsTo(CHILD_PATH)).map((c) => c.status)).toEqual([0]);
  });

  it("emits one gateway.request event per attempt with the templated route", async () => {
    const before = h.requests.length;
    await sim.addFault({
      match: { method: "GET", pathPattern: STATUS_PATH },
      action: { status: 502 },
      times: 1,
    });
    await h.client.users.getStatus(token, parent);
    expect(h.requests.slice(before).map((e) => [e.gateway, e.method, e.route, e.status])).toEqual([
      ["um", "GET", "/v1/workspaces/{ws}/status", 502],
      ["um", "GET", "/v1/workspaces/{ws}/status", 200],
    ]);
  });
});
