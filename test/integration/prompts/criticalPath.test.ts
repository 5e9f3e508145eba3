import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { QUOTA_RETRY_INTERVAL_MS } from "../../../src/allocation/retryOnQuota.ts";
import { findKnownModels } from "../../../src/db/markets/findKnownModels.ts";
import { findKnownTags } from "../../../src/db/markets/findKnownTags.ts";
import { listReadyMarkets } from "../../../src/db/markets/listReadyMarkets.ts";
import { createGatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import type { Call } from "../../../src/simulator/createSimulator.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import type { SimProject } from "../../../src/simulator/store/types.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The metered write's critical path: a bulk create into an existing market takes the
 * market's model set and tag ids from what Serenity remembers (PostgreSQL), reads the project's
 * texts alongside the guard's resources read, and makes — at steady state — exactly: texts read,
 * resources read, create, publish (flag on); texts read, create, publish (flag off). Counted from
 * the simulator's call log. What is remembered is refreshed when upstream says it is stale: a tag
 * deleted behind our back, a model added behind our back — never a wrong write.
 */

const PE = "/enterprise/projects/api";
const originalFlag = process.env.SERENITY_DYNAMIC_ALLOCATION;

let sim: TestSimulator;
let t: TestApp;
let clock: ManualClock;
let token: string;
let orgId: string;
let brandId: string;
let subWorkspaceId: string;
let counter = 0;

beforeAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
  clock = new ManualClock(new Date());
  sim = await startTestSimulator({ seed: "gold", settings: { settleReads: 0 } });
  t = await createTestApp({ clock, gateway: { url: sim.url, maxRetries: 0 } });
  const admin = await t.token({ sub: "admin", admin: true });
  const org = await t.app.inject({
    method: "POST",
    url: "/v2/orgs",
    headers: { authorization: `Bearer ${admin}` },
    payload: { name: "Critical path", parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID },
  });
  orgId = org.json().id;
  token = await t.token({ sub: "user-1", orgs: [orgId] });
  const brand = await call("POST", `/v2/orgs/${orgId}/brands`, {
    name: "Zephyr",
    domain: "zephyr.example",
    semrushMarket: { market: "US", languageCode: "en", modelIds: ["search-gpt"] },
  });
  expect(brand.status).toBe(201);
  brandId = brand.body.id;
  subWorkspaceId = brand.body.subWorkspaceId;
});
afterEach(() => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = "true";
});
afterAll(async () => {
  process.env.SERENITY_DYNAMIC_ALLOCATION = originalFlag;
  await t?.close();
  await sim?.close();
});

async function call(method: string, url: string, body?: unknown) {
  const response = await t.app.inject({
    method: method as "GET",
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: response.statusCode, body: response.body ? response.json() : undefined };
}

/** Plenty of headroom: the guard's hot path (no transfer). */
async function headroom(spare = 1_000): Promise<void> {
  const dump = await sim.dump();
  const { prompts } = dump.workspaces.find((w) => w.id === subWorkspaceId)!.resources;
  await sim.control("/quota", {
    workspaceId: subWorkspaceId,
    prompts: prompts.used + prompts.drafted + spare,
  });
}

function usProject(): SimProject {
  return sim.simulator.store.projectsOf(subWorkspaceId).find((project) => project.locationId === 2840)!;
}

async function market() {
  const [row] = await listReadyMarkets(t.db.db, brandId);
  return row!;
}

/** One bulk create of `texts` new texts into the US market; its answer and its upstream calls. */
async function bulk(texts = 1, category?: string): Promise<{ status: number; ids: string[]; calls: Call[] }> {
  await sim.clearCalls();
  const answer = await call("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`, {
    items: Array.from({ length: texts }, () => ({
      text: `critical path prompt ${++counter}`,
      geoTargetId: 2840,
      languageCode: "en",
      ...(category ? { category } : {}),
    })),
  });
  return {
    status: answer.status,
    ids: (answer.body.items ?? []).map((item: { id: string }) => item.id),
    calls: await sim.calls(),
  };
}

const shape = (calls: Call[]) =>
  calls.map(
    (c) =>
      `${c.method} ${c.path.replace(/\/workspaces\/[^/]+/g, "/workspaces/:id").replace(/\/projects\/(?!api\/)[^/]+/g, "/projects/:id")} ${c.status}`,
  );

/** Tag paths (`root=value`) of a prompt as the simulator holds them; throws on a dangling id. */
function tagPaths(project: SimProject, promptId: string): string[] {
  return project.prompts
    .get(promptId)!
    .tagIds.map((id) => {
      const tag = project.tags.get(id);
      if (!tag) throw new Error(`prompt ${promptId} names tag ${id}, which the project does not hold`);
      const parent = tag.parentId ? project.tags.get(tag.parentId)!.name : "";
      return `${parent}=${tag.name}`;
    })
    .sort();
}

describe("round trips at steady state (simulator call log)", () => {
  it("the market's creation made Serenity's tags: from the first create on, texts, resources, create, publish (4); flag off 3", async () => {
    const row = await market();
    // Made and remembered by the market create (issue 36, item 6): roots and known values.
    expect(
      (await findKnownTags(t.db.db, [row.id]))
        .get(row.id)!
        .map((tag) => tag.tagKey)
        .sort(),
    ).toEqual([
      "category",
      "intent",
      "origin",
      "origin=ai",
      "origin=human",
      "source",
      "source=api",
      "source=semrush",
      "type",
      "type=branded",
      "type=non-branded",
    ]);
    await headroom();
    const first = await bulk();
    expect(first.status).toBe(201);
    // The model set was remembered by the market create itself: not read again; no tag call.
    expect((await findKnownModels(t.db.db, [row.id])).get(row.id)?.modelIds).toHaveLength(1);
    expect(
      shape(first.calls).filter((line) => line.includes("/ai_models") || line.includes("/aio/tags")),
    ).toEqual([]);
    expect(first.calls).toHaveLength(4);

    await headroom();
    const on = await bulk();
    expect(on.status).toBe(201);
    expect(new Set(shape(on.calls))).toEqual(
      new Set([
        `POST ${PE}/v2/workspaces/:id/projects/:id/aio/prompts/by_tags 200`,
        `GET /enterprise/users/api/v1/workspaces/:id/resources 200`,
        `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 201`,
        `POST ${PE}/v1/workspaces/:id/projects/:id/publish 202`,
      ]),
    );
    expect(on.calls).toHaveLength(4);
    // The write comes after both reads; the publish last.
    expect(shape(on.calls.slice(2))).toEqual([
      `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 201`,
      `POST ${PE}/v1/workspaces/:id/projects/:id/publish 202`,
    ]);

    process.env.SERENITY_DYNAMIC_ALLOCATION = "false";
    const off = await bulk();
    expect(off.status).toBe(201);
    expect(shape(off.calls)).toEqual([
      `POST ${PE}/v2/workspaces/:id/projects/:id/aio/prompts/by_tags 200`,
      `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 201`,
      `POST ${PE}/v1/workspaces/:id/projects/:id/publish 202`,
    ]);
    expect(tagPaths(usProject(), off.ids[0]!)).toEqual(["origin=human", "source=api", "type=non-branded"]);
  });

  it("the texts read runs alongside the guard's read: with the texts read held upstream, the resources read answers first", async () => {
    await headroom();
    await sim.control("/faults", {
      match: { method: "POST", pathPattern: "/aio/prompts/by_tags$" },
      action: { delayMs: 1_500 },
      times: 1,
    });
    const answer = await bulk();
    expect(answer.status).toBe(201);
    // Logged as answered: the resources read did not wait for the texts (the old order was
    // texts → resources → create → publish).
    expect(shape(answer.calls).map((line) => line.split(" ")[1]!.split("/").at(-1))).toEqual([
      "resources",
      "by_tags",
      "prompts",
      "publish",
    ]);
  });

  it("a new tag value (a category never used in the market) is resolved upstream once, then remembered", async () => {
    await headroom();
    const first = await bulk(1, "running shoes");
    expect(first.status).toBe(201);
    expect(shape(first.calls).some((line) => line.includes("/aio/tags"))).toBe(true);
    await headroom();
    const again = await bulk(1, "running shoes");
    expect(again.calls).toHaveLength(4);
    expect(tagPaths(usProject(), again.ids[0]!)).toEqual([
      "category=running shoes",
      "origin=human",
      "source=api",
      "type=non-branded",
    ]);
  });
});

describe("what is remembered is refreshed when upstream says it is stale", () => {
  it("a tag deleted upstream behind our back: the create is refused (nothing created), the tags are resolved again, the write lands with live ids", async () => {
    await headroom();
    expect((await bulk()).status).toBe(201); // tags known
    const project = usProject();
    const origin = [...project.tags.values()].find((tag) => tag.parentId === null && tag.name === "origin")!;
    const human = [...project.tags.values()].find(
      (tag) => tag.parentId === origin.id && tag.name === "human",
    )!;
    // Someone deletes `origin=human` in the upstream UI.
    project.tags.delete(human.id);
    const promptsBefore = project.prompts.size;

    await headroom();
    const answer = await bulk();
    expect(answer.status).toBe(201);
    const lines = shape(answer.calls);
    // The create naming the deleted id is refused (500, nothing created); the value is created
    // again under its (still known) root; the batch is sent once more.
    expect(lines.filter((line) => line.includes("/v3/"))).toEqual([
      `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 500`,
      `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 201`,
    ]);
    expect(project.prompts.size).toBe(promptsBefore + 1);
    // Never a wrong write: every id on the new prompt is a live tag of the project, the right ones.
    expect(tagPaths(project, answer.ids[0]!)).toEqual(["origin=human", "source=api", "type=non-branded"]);
    const recreated = [...project.tags.values()].find(
      (tag) => tag.parentId === origin.id && tag.name === "human",
    )!;
    expect(recreated.id).not.toBe(human.id);
    // The new id is what is remembered now: the next create makes no tag call again.
    const row = await market();
    const known = (await findKnownTags(t.db.db, [row.id])).get(row.id)!;
    expect(known.find((tag) => tag.tagKey === "origin=human")?.tagId).toBe(recreated.id);
    await headroom();
    expect((await bulk()).calls).toHaveLength(4);
  });

  it("a root deleted behind our back (with its values): resolved again from the roots", async () => {
    await headroom();
    expect((await bulk(1, "trail")).status).toBe(201);
    const project = usProject();
    const category = [...project.tags.values()].find(
      (tag) => tag.parentId === null && tag.name === "category",
    )!;
    for (const tag of [...project.tags.values()]) {
      if (tag.id === category.id || tag.parentId === category.id) project.tags.delete(tag.id);
    }
    // A value not remembered yet, under the deleted (remembered) root.
    await headroom();
    const answer = await bulk(1, "road");
    expect(answer.status).toBe(201);
    expect(tagPaths(project, answer.ids[0]!)).toEqual([
      "category=road",
      "origin=human",
      "source=api",
      "type=non-branded",
    ]);
  });

  it("a model added upstream behind our back: the refused create re-reads the set, tops up for it, and lands", async () => {
    const row = await market();
    await headroom();
    expect((await bulk()).status).toBe(201);
    // Someone adds a second model to the project in the upstream UI (a project with texts: it
    // stages units for them, so give it the room first).
    await headroom(10_000);
    const models = await t.services.catalogues.models(token);
    const second = models.find((model) => model.key === "perplexity")!;
    const client = createGatewayClient({
      projectsBaseUrl: sim.url,
      usersBaseUrl: sim.url,
      events: new EventBus(),
      logger: createLogger({ level: "silent" }),
    });
    await client.projects.addProjectAiModel(token, row.workspaceId, row.projectId!, second.id);
    await client.close();
    expect(usProject().models).toHaveLength(2);
    // Headroom for exactly what the remembered set (1 model) says 10 texts cost.
    await headroom(10);

    const pending = bulk(10);
    let settled = false;
    void pending.finally(() => (settled = true));
    // The create is refused (10 × 2 > 10); the guard re-reads the set and tops up for it, and
    // retryOnQuota waits its 3 s on the injected clock before the retry: move the clock then.
    const deadline = Date.now() + 30_000; // a hang guard only
    while (!settled && !clock.remainingSleeps().includes(QUOTA_RETRY_INTERVAL_MS)) {
      if (Date.now() > deadline) throw new Error("the write never waited for its quota retry");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    clock.advance(QUOTA_RETRY_INTERVAL_MS);
    const answer = await pending;
    expect(answer.status).toBe(201);
    expect(answer.ids).toHaveLength(10);
    const lines = shape(answer.calls);
    expect(lines.filter((line) => line.includes("/v3/"))).toEqual([
      `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 405`,
      `POST ${PE}/v3/workspaces/:id/projects/:id/aio/prompts 201`,
    ]);
    expect(lines.filter((line) => line.includes("/ai_models"))).toEqual([
      `GET ${PE}/v1/workspaces/:id/projects/:id/ai_models 200`,
    ]);
    expect((await findKnownModels(t.db.db, [row.id])).get(row.id)?.modelIds).toHaveLength(2);
  });

  it("models changed through Serenity are remembered as set (no read on the next create)", async () => {
    const row = await market();
    const answer = await call("PUT", `/v2/orgs/${orgId}/brands/${brandId}/serenity/markets/2840/en/models`, {
      modelIds: ["search-gpt"],
    });
    expect(answer.status).toBe(200);
    expect((await findKnownModels(t.db.db, [row.id])).get(row.id)?.modelIds).toHaveLength(1);
    await headroom();
    const next = await bulk();
    expect(next.calls).toHaveLength(4);
  });
});

describe("a market made before its creation seeded the tags (SERENITY_MARKET_TAG_SEEDING=false)", () => {
  it("its first write resolves its own tags and backfills Serenity's known values; a later write of another type asks nothing", async () => {
    process.env.SERENITY_MARKET_TAG_SEEDING = "false";
    try {
      const made = await call("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/markets`, {
        market: "CA",
        languageCode: "en",
        modelIds: ["search-gpt"],
      });
      expect(made.status).toBe(201);
    } finally {
      delete process.env.SERENITY_MARKET_TAG_SEEDING;
    }
    const rows = await listReadyMarkets(t.db.db, brandId);
    const canada = rows.find((row) => row.geoTargetId === 2124)!;
    expect((await findKnownTags(t.db.db, [canada.id])).get(canada.id) ?? []).toEqual([]);
    const write = async (text: string) => {
      await headroom();
      await sim.clearCalls();
      const answer = await call("POST", `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`, {
        items: [{ text, geoTargetId: 2124, languageCode: "en" }],
      });
      expect(answer.status).toBe(201);
      return shape(await sim.calls());
    };
    const first = await write(`plain question ${++counter}`);
    expect(first.filter((line) => line.includes("/aio/tags")).length).toBeGreaterThan(0);
    expect(
      (await findKnownTags(t.db.db, [canada.id]))
        .get(canada.id)!
        .map((tag) => tag.tagKey)
        .filter((key) => key.includes("="))
        .sort(),
    ).toEqual([
      "origin=ai",
      "origin=human",
      "source=api",
      "source=semrush",
      "type=branded",
      "type=non-branded",
    ]);
    // Branded this time (the brand's name in the text): its tag was backfilled by the first write.
    const second = await write(`Is Zephyr any good ${++counter}?`);
    expect(second.filter((line) => line.includes("/aio/tags"))).toEqual([]);
    expect(second).toHaveLength(4);
  });
});
