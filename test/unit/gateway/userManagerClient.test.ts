import { describe, expect, it } from "vitest";

import { reply, useScriptedClient } from "../../support/scriptedUpstream.ts";
import { UM } from "../../support/simulator.ts";

/**
 * Every call of spec/gateway.md §2: the method, path, query and body the adapter sends, and the
 * camelCase shape it maps the answer to. The contract suite checks the same calls against the simulator.
 */

const T = "token-1";

const scripted = useScriptedClient();
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- request bodies are read loosely in assertions
const sent = () => scripted.sent() as { method?: string; url?: string; body: any };

const workspace = { id: "7", title: "Acme", status: " Created", parent_id: "1", extra: "kept out" };

describe("User Manager adapter", () => {
  it("createSubWorkspace with an allocation", async () => {
    scripted.upstream.script(reply(200, { ...workspace, status: "not ready" }));
    const created = await scripted.client.users.createSubWorkspace(T, "1", {
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
    scripted.upstream.script(reply(200, { status: "Not Ready" }));
    expect(await scripted.client.users.getStatus(T, "7")).toBe("not ready");
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/7/status` });

    // A root's parent_id: "" (what a live-calibrated mock answers; the documents type it as a string).
    scripted.upstream.script(reply(200, [{ ...workspace, id: "1", parent_id: "" }, workspace]));
    expect(await scripted.client.users.getFamily(T, "1")).toEqual([
      { id: "1", title: "Acme", status: "created", parentId: null },
      { id: "7", title: "Acme", status: "created", parentId: "1" },
    ]);
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/1/family` });

    scripted.upstream.script(
      reply(200, {
        ...workspace,
        product_tiers: [
          { product: { id: "seo", limits_enabled: false }, tier: { id: "t1", name: "Guru", rank: 2 } },
          {
            product: { id: "ai", name: "AI", limits_enabled: true },
            tier: { id: "t2", name: "AI", rank: 1 },
          },
        ],
      }),
    );
    expect(await scripted.client.users.getWorkspace(T, "7")).toEqual({
      id: "7",
      title: "Acme",
      status: "created",
      parentId: "1",
      aiLimitsEnabled: true,
    });
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/7` });

    const usage = { used: 0, drafted: 0, total: 0 };
    scripted.upstream.script(
      reply(200, { product_resources: { ai: { resources: { projects: usage, prompts: usage } } } }),
    );
    expect(await scripted.client.users.getResources(T, "7")).toEqual({ projects: usage, prompts: usage });
    expect(sent()).toMatchObject({ method: "GET", url: `${UM}/v1/workspaces/7/resources` });
  });

  it("getWorkspace reads the ai product's limits_enabled where the published document puts it (product_tiers[].product)", async () => {
    const details = async (body: object) => {
      scripted.upstream.script(reply(200, { ...workspace, ...body }));
      return (await scripted.client.users.getWorkspace(T, "7")).aiLimitsEnabled;
    };
    expect(await details({ product_tiers: [{ product: { id: "ai", limits_enabled: false } }] })).toBe(false);
    // Not where the document puts it, or not a boolean: unknown, never a guess.
    expect(await details({ limits_enabled: { ai: false } })).toBeNull();
    expect(await details({ product_tiers: [{ product: { id: "seo", limits_enabled: false } }] })).toBeNull();
    expect(await details({ product_tiers: [{ product: { id: "ai", limits_enabled: "false" } }] })).toBeNull();
    expect(await details({ product_tiers: null })).toBeNull();
    // An entry of another shape is skipped, not a failed answer.
    expect(
      await details({
        product_tiers: [
          { tier: { id: "x" } },
          { product: null },
          { product: { id: "ai", limits_enabled: true } },
        ],
      }),
    ).toBe(true);
  });

  it("transferResources sends only the named dimensions", async () => {
    scripted.upstream.script(reply(200, workspace));
    await scripted.client.users.transferResources(T, "7", { projects: 3, prompts: 300 });
    expect(sent()).toEqual({
      method: "POST",
      url: `${UM}/v2/workspaces/7/resources/transfer`,
      body: { resources: { ai: { projects: 3, prompts: 300 } } },
    });
    await scripted.client.users.transferResources(T, "7", { prompts: 100 });
    expect(sent().body).toEqual({ resources: { ai: { prompts: 100 } } });
  });

  it("deleteWorkspace", async () => {
    scripted.upstream.script(reply(200, { id: "7" }));
    await scripted.client.users.deleteWorkspace(T, "7");
    expect(sent()).toMatchObject({ method: "DELETE", url: `${UM}/v1/workspaces/7` });
  });
});
