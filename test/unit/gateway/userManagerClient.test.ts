import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { Clock } from "../../../src/domain/clock.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { reply, type ScriptedUpstream, startScriptedUpstream } from "../../support/scriptedUpstream.ts";
import { UM } from "../../support/simulator.ts";

/**
 * Every call of spec/gateway.md §2: the method, path, query and body the adapter sends, and the
 * camelCase shape it maps the answer to. The contract suite checks the same calls against the simulator.
 */

const AT = new Date("2026-02-03T04:05:06.000Z");
const clock: Clock = { now: () => AT, sleep: async () => undefined };
const T = "token-1";

let upstream: ScriptedUpstream;
let client: GatewayClient;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  client = createGatewayClient({
    projectsBaseUrl: upstream.origin,
    usersBaseUrl: upstream.origin,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
    clock,
    maxRetries: 0,
  });
});
afterAll(async () => {
  await client.close();
  await upstream.close();
});

function sent() {
  const request = upstream.requests.at(-1);
  return {
    method: request?.method,
    url: request?.url,
    body: request?.body ? JSON.parse(request.body) : undefined,
  };
}

const workspace = { id: 7, title: "Acme", status: " Created", parent_id: 1, extra: "kept out" };

describe("User Manager adapter", () => {
  it("createSubWorkspace with an allocation", async () => {
    upstream.script(reply(200, { ...workspace, status: "not ready" }));
    const created = await client.users.createSubWorkspace(T, "1", {
      title: "Acme",
      resources: { projects: 1 },
    });
    expect(sent()).toEqual({
      method: "POST",
      url: `${UM}/v2/workspaces/1/child`,
      body: { title: "Acme", resources: { ai: { projects: 1 } } },
    });
    expect(created).toEqual({ id: "7", title: "Acme", status: "not ready", parentId: "1" });
  });

  it("getStatus, getFamily, getWorkspace, getResources", async () => {
    upstream.script(reply(200, { status: "Not Ready" }));
    expect(await client.users.getStatus(T, "7")).toBe("not ready");
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/7/status` });

    upstream.script(reply(200, [{ ...workspace, id: 1, parent_id: null }, workspace]));
    expect(await client.users.getFamily(T, "1")).toEqual([
      { id: "1", title: "Acme", status: "created", parentId: null },
      { id: "7", title: "Acme", status: "created", parentId: "1" },
    ]);
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/1/family` });

    upstream.script(reply(200, { ...workspace, limits_enabled: { ai: true, seo: false } }));
    expect(await client.users.getWorkspace(T, "7")).toEqual({
      id: "7",
      title: "Acme",
      status: "created",
      parentId: "1",
      limitsEnabled: { ai: true },
    });
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/7` });

    const usage = { used: 0, drafted: 0, total: 0 };
    upstream.script(
      reply(200, { product_resources: { ai: { resources: { projects: usage, prompts: usage } } } }),
    );
    expect(await client.users.getResources(T, "7")).toEqual({ projects: usage, prompts: usage });
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/7/resources` });
  });

  it("transferResources sends only the named dimensions", async () => {
    upstream.script(reply(200, workspace));
    await client.users.transferResources(T, "7", { projects: 3, prompts: 300 });
    expect(sent()).toEqual({
      method: "POST",
      url: `${UM}/v2/workspaces/7/resources/transfer`,
      body: { resources: { ai: { projects: 3, prompts: 300 } } },
    });
    await client.users.transferResources(T, "7", { prompts: 100 });
    expect(sent().body).toEqual({ resources: { ai: { prompts: 100 } } });
  });

  it("deleteWorkspace", async () => {
    upstream.script(reply(200, { id: 7 }));
    await client.users.deleteWorkspace(T, "7");
    expect(sent()).toMatchObject({ method: "DELETE", url: `${UM}/v1/workspaces/7` });
  });
});
