import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { Clock } from "../../../src/domain/clock.ts";
import { GatewayError } from "../../../src/gateway/errors.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { MAX_THROTTLED_RETRIES } from "../../../src/gateway/retryPolicy.ts";
import { EventBus, type ServiceEvents } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { LogCapture } from "../../support/logCapture.ts";
import { reply, type ScriptedUpstream, startScriptedUpstream } from "../../support/scriptedUpstream.ts";

/** A clock whose sleeps resolve at once and are recorded: the retry waits, without waiting. */
class RecordingClock implements Clock {
  readonly waits: number[] = [];
  now(): Date {
    return new Date("2026-01-01T00:00:00.000Z");
  }
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
  }
}

const TOKEN = "tok-abc.def";
const NGINX_405 = "<html><head><title>405 Not Allowed</title></head><body>nginx</body></html>";
const RESOURCES = {
  product_resources: {
    ai: {
      resources: {
        projects: { used: 1, drafted: 2, total: 13 },
        prompts: { used: 10, drafted: 0, total: 800 },
      },
    },
  },
};

let upstream: ScriptedUpstream;
let client: GatewayClient;
let clock: RecordingClock;
let events: EventBus;
let logs: LogCapture;
let requests: ServiceEvents["gateway.request"][];
let quota: boolean[];

function open(options: { timeoutMs?: number; usersBaseUrl?: string } = {}): GatewayClient {
  return createGatewayClient({
    projectsBaseUrl: upstream.origin,
    usersBaseUrl: options.usersBaseUrl ?? upstream.origin,
    events,
    logger: createLogger({ level: "debug", destination: logs }),
    clock,
    timeoutMs: options.timeoutMs ?? 2_000,
    random: () => 0.5,
  });
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream();
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  clock = new RecordingClock();
  events = new EventBus();
  logs = new LogCapture();
  requests = [];
  quota = [];
  events.on("gateway.request", (e) => requests.push(e));
  events.on("gateway.quotaClassification", (e) => quota.push(e.matched));
  client = open();
});
afterEach(async () => {
  await client.close();
});

describe("what every request carries", () => {
  it("forwards the bearer verbatim, asks for JSON and maps the answer", async () => {
    upstream.script(reply(200, RESOURCES));
    const resources = await client.users.getResources(TOKEN, "ws/1");
    expect(resources).toEqual({
      projects: { used: 1, drafted: 2, total: 13 },
      prompts: { used: 10, drafted: 0, total: 800 },
    });
    const [request] = upstream.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url).toBe("/enterprise/users/api/v1/workspaces/ws%2F1/resources");
    expect(request?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request?.headers.accept).toBe("application/json");
    expect(request?.headers["content-type"]).toBeUndefined();
  });

  it("sends JSON bodies with a content type", async () => {
    upstream.script(reply(200, { id: "c1", title: "Brand", status: "Not Ready", parent_id: "p1" }));
    const child = await client.users.createSubWorkspace(TOKEN, "p1", { title: "Brand" });
    expect(child).toEqual({ id: "c1", title: "Brand", status: "not ready", parentId: "p1" });
    expect(upstream.requests[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(upstream.requests[0]?.body ?? "")).toEqual({ title: "Brand", resources: {} });
  });

  it("emits one gateway.request event per attempt with the templated route", async () => {
    upstream.script(reply(200, RESOURCES));
    await client.users.getResources(TOKEN, "secret-ws-id");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      gateway: "um",
      method: "GET",
      route: "/v1/workspaces/{ws}/resources",
      status: 200,
    });
    expect(requests[0]?.durationSeconds).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(requests)).not.toContain("secret-ws-id");
  });

  it.each([undefined, "", "   ", "abc\r\nX-Injected: 1"])(
    "fails with unauthorized before sending anything when the bearer is %j",
    async (bearer) => {
      upstream.script(reply(200, RESOURCES));
      const error = await failure(client.users.getResources(bearer as string, "ws"));
      expect(error).toMatchObject({ kind: "unauthorized", status: 401, method: "GET" });
      expect(error.route).toBe("/v1/workspaces/{ws}/resources");
      expect(upstream.requests).toHaveLength(0);
      expect(requests).toHaveLength(0);
    },
  );
});

describe("classification and error hygiene", () => {
  it("a 405 HTML page is meteredQuota and counted as a match", async () => {
    upstream.script(reply(405, NGINX_405, "text/html"));
    const error = await failure(client.projects.publishProject(TOKEN, "ws", "p"));
    expect(error).toMatchObject({ kind: "meteredQuota", status: 405, method: "POST" });
    expect(error.route).toBe("/v1/workspaces/{ws}/projects/{pid}/publish");
    expect(quota).toEqual([true]);
  });

  it("a 405 JSON body is methodNotAllowed and counted as a non-match", async () => {
    upstream.script(reply(405, { message: "Method Not Allowed" }));
    const error = await failure(client.projects.publishProject(TOKEN, "ws", "p"));
    expect(error.kind).toBe("methodNotAllowed");
    expect(quota).toEqual([false]);
  });

  it("keeps the upstream body out of the message, truncated on the error for logs", async () => {
    const huge = `insufficient available units ${"x".repeat(5000)}`;
    upstream.script(reply(422, { message: huge }));
    const error = await failure(client.users.transferResources(TOKEN, "sub", { prompts: 300 }));
    expect(error.kind).toBe("poolExhausted");
    expect(error.message).not.toContain("insufficient");
    expect(error.message).toBe(
      "Gateway um POST /v2/workspaces/{ws}/resources/transfer failed: poolExhausted (422)",
    );
    expect(error.body?.length).toBeLessThan(2200);
    expect(error.body).toContain("[truncated");
    expect(JSON.parse(upstream.requests[0]?.body ?? "")).toEqual({ resources: { ai: { prompts: 300 } } });
  });

  it("never writes the bearer into a log line", async () => {
    upstream.script(reply(503, "down"));
    await failure(client.users.getStatus(TOKEN, "ws"));
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.lines.join("\n")).not.toContain(TOKEN);
    expect(logs.lines.join("\n")).toContain("/v1/workspaces/{ws}/status");
  });

  it("a 2xx that breaks the contract is unexpectedResponse, not a crash", async () => {
    upstream.script(reply(200, { product_resources: { ai: { resources: { projects: { used: "one" } } } } }));
    const error = await failure(client.users.getResources(TOKEN, "ws"));
    expect(error).toMatchObject({ kind: "unexpectedResponse", status: 200 });
    expect(upstream.requests).toHaveLength(1);
  });

  it("a 2xx whose body is not JSON is unexpectedResponse", async () => {
    upstream.script(reply(200, "<html>login</html>", "text/html"));
    expect((await failure(client.projects.listLanguages(TOKEN))).kind).toBe("unexpectedResponse");
  });

  it("tolerates unknown extra fields", async () => {
    upstream.script(reply(200, { status: "CREATED", eta: 3, extra: { nested: true } }));
    expect(await client.users.getStatus(TOKEN, "ws")).toBe("created");
  });
});

describe("retries", () => {
  it("retries a GET on 5xx with jittered backoff, then succeeds", async () => {
    upstream.script(reply(503, "busy"), reply(502, "bad"), reply(200, { status: "created" }));
    expect(await client.users.getStatus(TOKEN, "ws")).toBe("created");
    expect(upstream.requests).toHaveLength(3);
    expect(clock.waits).toEqual([150, 300]);
    expect(requests.map((r) => r.status)).toEqual([503, 502, 200]);
  });

  it("gives up after two retries with the last classification", async () => {
    upstream.script(reply(500, "boom"));
    const error = await failure(client.users.getStatus(TOKEN, "ws"));
    expect(error).toMatchObject({ kind: "unavailable", status: 500 });
    expect(upstream.requests).toHaveLength(3);
    expect(clock.waits).toHaveLength(2);
  });

  it("never retries a POST on 5xx", async () => {
    upstream.script(reply(500, "boom"));
    const error = await failure(client.users.createSubWorkspace(TOKEN, "p", { title: "t" }));
    expect(error.kind).toBe("unavailable");
    expect(upstream.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it("retries PUT and DELETE on 5xx, not PATCH", async () => {
    upstream.script(reply(503), reply(204));
    await client.projects.setPromptTags(TOKEN, "ws", "p", [{ promptId: "1", tagIds: ["t"], replace: true }]);
    expect(upstream.requests.map((r) => r.method)).toEqual(["PUT", "PUT"]);
    upstream.script(reply(503), reply(204));
    await client.projects.deletePrompts(TOKEN, "ws", "p", ["1"]);
    expect(upstream.requests.map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
    upstream.script(reply(503));
    await failure(client.projects.patchProject(TOKEN, "ws", "p", { primaryUrl: "https://a.example" }));
    expect(upstream.requests.map((r) => r.method)).toEqual(["PATCH"]);
  });

  it("retries a POST on 429, honouring Retry-After", async () => {
    upstream.script(
      (_req, res) => {
        res.writeHead(429, { "retry-after": "3" });
        res.end();
      },
      reply(201, { items: [{ id: "1", name: "q", is_new: true }], existing_count: 0 }),
    );
    const created = await client.projects.createPrompts(TOKEN, "ws", "p", { texts: ["q"], createdBy: "u" });
    expect(created.items).toEqual([{ id: "1", text: "q", isNew: true, tags: [], metadata: undefined }]);
    expect(upstream.requests).toHaveLength(2);
    expect(clock.waits).toEqual([3000]);
  });

  it("a persistent 429 is retried past maxRetries, then ends as rateLimited", async () => {
    upstream.script(reply(429));
    const error = await failure(client.projects.listLanguages(TOKEN));
    expect(error).toMatchObject({ kind: "rateLimited", status: 429 });
    // This clock never moves, so only the retry cap ends it: 1 + MAX_THROTTLED_RETRIES attempts.
    expect(upstream.requests).toHaveLength(1 + MAX_THROTTLED_RETRIES);
  });

  it("stops retrying a 429 when the next wait would pass the caller's deadline", async () => {
    upstream.script(reply(429));
    const deadlineAt = clock.now().getTime() + 250;
    const error = await failure(
      client.projects.listProjects(TOKEN, "ws", {}, { scope: { priority: "interactive", deadlineAt } }),
    );
    expect(error).toMatchObject({ kind: "rateLimited", status: 429 });
    // backoff(0) = 150 ms at this jitter fits, backoff(1) = 300 ms does not.
    expect(clock.waits).toEqual([150]);
    expect(upstream.requests).toHaveLength(2);
  });
});

/** Answers a minute later (never within the test): the client's 50 ms timeout must end the call. */
function answerLate(answer: () => void): void {
  setTimeout(answer, 60_000).unref();
}

describe("timeouts and network failures", () => {
  it("a slow answer times out as 504 unavailable; GET is retried", async () => {
    const slow = open({ timeoutMs: 50 });
    upstream.script((_req, res) => answerLate(() => reply(200, { status: "created" })(_req, res)));
    const error = await failure(slow.users.getStatus(TOKEN, "ws"));
    expect(error).toMatchObject({ kind: "unavailable", status: 504 });
    // Counted on the client's side: with a 50 ms budget on a loaded machine an attempt can be cut
    // before the upstream has even parsed it, so the upstream's own count may be lower.
    expect(requests.map((r) => r.status)).toEqual([504, 504, 504]);
    expect(upstream.requests.length).toBeLessThanOrEqual(3);
    await slow.close();
  });

  it("a POST that times out is not retried", async () => {
    const slow = open({ timeoutMs: 50 });
    upstream.script((_req, res) => answerLate(() => reply(200, {})(_req, res)));
    const error = await failure(slow.users.createSubWorkspace(TOKEN, "p", { title: "t" }));
    expect(error.status).toBe(504);
    expect(requests.map((r) => r.status)).toEqual([504]);
    expect(upstream.requests.length).toBeLessThanOrEqual(1);
    await slow.close();
  });

  it("a dropped connection is unavailable with status 0", async () => {
    upstream.script((_req, res) => res.socket?.destroy());
    const error = await failure(client.users.getFamily(TOKEN, "ws"));
    expect(error).toMatchObject({ kind: "unavailable", status: 0 });
    expect(upstream.requests).toHaveLength(3);
  });

  it("a refused connection is unavailable", async () => {
    const dead = createGatewayClient({
      projectsBaseUrl: "http://127.0.0.1:1",
      usersBaseUrl: "http://127.0.0.1:1",
      events,
      logger: createLogger({ level: "silent" }),
      clock,
      maxRetries: 0,
    });
    const error = await failure(dead.projects.listLanguages(TOKEN));
    expect(error).toMatchObject({ kind: "unavailable", status: 0 });
    await dead.close();
  });
});

describe("origins and readiness", () => {
  it("sends UM calls to the UM origin and PE calls to the PE origin", async () => {
    const users = await startScriptedUpstream();
    try {
      users.script(reply(200, { status: "created" }));
      upstream.script(reply(200, { page: 1, total: 0, items: [] }));
      const split = open({ usersBaseUrl: `${users.origin}/ignored/path` });
      await split.users.getStatus(TOKEN, "ws");
      await split.projects.listLanguages(TOKEN);
      expect(users.requests.map((r) => r.url)).toEqual(["/enterprise/users/api/v1/workspaces/ws/status"]);
      expect(upstream.requests.map((r) => r.url)).toEqual(["/enterprise/projects/api/v1/languages"]);
      await split.close();
    } finally {
      await users.close();
    }
  });

  it("is reachable when the gateway answers, even 401, and sends the bearer it is given", async () => {
    upstream.script(reply(401, { detail: "Not authenticated" }));
    expect(await client.reachable(TOKEN)).toBe(true);
    expect(upstream.requests[0]?.url).toBe("/enterprise/projects/api/v1/languages");
    expect(upstream.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(requests).toHaveLength(0);
  });

  it("sends nothing for an unusable bearer", async () => {
    const before = upstream.requests.length;
    expect(await client.reachable(" ")).toBe(false);
    expect(upstream.requests).toHaveLength(before);
  });

  it("is unreachable on a proxy's 503, without retrying", async () => {
    upstream.script(reply(503));
    expect(await client.reachable(TOKEN)).toBe(false);
    expect(upstream.requests).toHaveLength(1);
  });

  it("is unreachable when nothing listens", async () => {
    const dead = createGatewayClient({
      projectsBaseUrl: "http://127.0.0.1:1",
      usersBaseUrl: "http://127.0.0.1:1",
      events,
      logger: createLogger({ level: "silent" }),
    });
    expect(await dead.reachable(TOKEN)).toBe(false);
    await dead.close();
  });
});
