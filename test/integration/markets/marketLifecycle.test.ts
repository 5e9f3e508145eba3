import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { markets } from "../../../src/db/schema.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { callShape, expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { PE } from "../../support/simulator.ts";

let world: MarketWorld;

beforeAll(async () => {
  world = await startMarketWorld();
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

async function createMarket(market: string, languageCode: string, modelIds?: string[]) {
  const answer = await world.call("POST", world.marketsUrl(), { market, languageCode, modelIds });
  expect(answer.status).toBe(201);
  return answer.body.market as { projectId: string; geoTargetId: number; languageCode: string };
}

const modelKeys = (market: { models: { key: string }[] }) => market.models.map((model) => model.key);

describe("list markets", () => {
  it("shows each ready market with its upstream publish status, models and prompt count", async () => {
    const us = await createMarket("US", "en", ["search-gpt", "perplexity"]);
    await createMarket("FR", "fr", ["gpt-5"]);
    await world.call("POST", world.promptsUrl(), {
      items: [
        { text: "best running shoes", geoTargetId: 2840, languageCode: "en" },
        { text: "acme shoes review", geoTargetId: 2840, languageCode: "en" },
      ],
    });
    const answer = await world.call("GET", world.marketsUrl());
    expect(answer.status).toBe(200);
    expect(answer.body.items).toHaveLength(2);
    // Markets are listed in their paging order, (geoTargetId, languageCode) (ADR 0037): FR, then US.
    const [second, first] = answer.body.items;
    expect(first).toMatchObject({
      geoTargetId: 2840,
      languageCode: "en",
      country: "US",
      projectId: us.projectId,
      publishStatus: "live",
      promptCount: 2,
    });
    expect(modelKeys(first)).toEqual(["search-gpt", "perplexity"]);
    expect(second).toMatchObject({ geoTargetId: 2250, languageCode: "fr", promptCount: 0 });
    expect(Date.parse(first.createdAt)).not.toBeNaN();
  });

  it("a project deleted upstream behind our back shows as missing", async () => {
    const de = await createMarket("DE", "de");
    world.sim.simulator.store.projects.delete(de.projectId);
    const answer = await world.call("GET", world.marketsUrl());
    const listed = answer.body.items.find((market: { geoTargetId: number }) => market.geoTargetId === 2276);
    expect(listed).toMatchObject({
      publishStatus: "missing",
      models: [],
      promptCount: 0,
      projectId: de.projectId,
    });
  });

  it("an upstream failure while listing → 502 with the generic message", async () => {
    await world.sim.control("/faults", {
      match: { method: "GET", pathPattern: "/ai_models$" },
      action: { status: 500 },
      times: 1,
    });
    const answer = await world.call("GET", world.marketsUrl());
    expect(answer.status).toBe(502);
    expect(answer.body.error).toBe("serenityUpstreamError");
  });
});

describe("delete market", () => {
  it("deletes the project and the row → 204", async () => {
    const es = await createMarket("ES", "es");
    await world.sim.clearCalls();
    const answer = await world.call("DELETE", `${world.marketsUrl()}/2724/es`);
    expect(answer.status).toBe(204);
    expect(answer.raw).toBe("");
    expect(callShape(await world.sim.calls(), { ws: GOLD_PARENT_WORKSPACE_ID, pid: es.projectId })).toEqual([
      `DELETE ${PE}/v1/workspaces/{ws}/projects/{pid}`,
    ]);
    expect(world.projects().some((p) => p.id === es.projectId)).toBe(false);
    const rows = await world.t.db.db.select().from(markets).where(eq(markets.geoTargetId, 2724));
    expect(rows).toEqual([]);
  });

  it("an upstream 404 counts as success → 204", async () => {
    // DE's project was already removed upstream (see the list test).
    const answer = await world.call("DELETE", `${world.marketsUrl()}/2276/DE`);
    expect(answer.status).toBe(204);
    const rows = await world.t.db.db.select().from(markets).where(eq(markets.geoTargetId, 2276));
    expect(rows).toEqual([]);
  });

  it("another upstream failure keeps the market and answers 502", async () => {
    await createMarket("IT", "it");
    await world.sim.control("/faults", {
      match: { method: "DELETE", pathPattern: "/projects/[^/]+$" },
      action: { status: 500 },
      times: 1,
    });
    const answer = await world.call("DELETE", `${world.marketsUrl()}/2380/it`);
    expect(answer.status).toBe(502);
    const rows = await world.t.db.db.select().from(markets).where(eq(markets.geoTargetId, 2380));
    expect(rows).toHaveLength(1);
  });

  it("an unknown market → 404; malformed path parameters → 400", async () => {
    expect((await world.call("DELETE", `${world.marketsUrl()}/2032/es`)).status).toBe(404);
    for (const path of ["abc/en", "0/en", "-5/en", "2840/e", "2840/engl", "2840/e1"]) {
      const answer = await world.call("DELETE", `${world.marketsUrl()}/${path}`);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error).toBe("invalidRequest");
    }
  });
});

describe("replace models", () => {
  it("deletes removed assignments in one call, adds new ones one by one, publishes, returns the market", async () => {
    const us = (await world.call("GET", world.marketsUrl())).body.items.find(
      (market: { geoTargetId: number }) => market.geoTargetId === 2840,
    );
    expect(modelKeys(us)).toEqual(["search-gpt", "perplexity"]);
    await world.sim.clearCalls();
    const answer = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, {
      modelIds: ["perplexity", "gpt-5", "claude-sonnet-4"],
    });
    expect(answer.status).toBe(200);
    expect(modelKeys(answer.body)).toEqual(["perplexity", "gpt-5", "claude-sonnet-4"]);
    expect(answer.body).toMatchObject({ geoTargetId: 2840, promptCount: 2 });
    const shape = callShape(await world.sim.calls(), { ws: GOLD_PARENT_WORKSPACE_ID, pid: us.projectId });
    // The catalogue is cached by now; the three reads describing the result run in parallel.
    expect(shape.slice(0, 6)).toEqual([
      `GET ${PE}/v1/workspaces/{ws}/projects/{pid}/ai_models`,
      `DELETE ${PE}/v1/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/aio/prompts/by_tags`,
      `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/ai_models`,
      `POST ${PE}/v1/workspaces/{ws}/projects/{pid}/publish`,
    ]);
    expect(shape.slice(6).sort()).toEqual(
      [
        `GET ${PE}/v1/workspaces/{ws}/projects/{pid}`,
        `GET ${PE}/v1/workspaces/{ws}/projects/{pid}/ai_models`,
        `POST ${PE}/v2/workspaces/{ws}/projects/{pid}/aio/prompts/by_tags`,
      ].sort(),
    );
    const project = world.projects().find((p) => p.id === us.projectId)!;
    expect(project.models).toHaveLength(3);
  });

  it("an unchanged set writes nothing", async () => {
    await world.sim.clearCalls();
    const answer = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, {
      modelIds: ["claude-sonnet-4", "gpt-5", "perplexity"],
    });
    expect(answer.status).toBe(200);
    expect(
      (await world.sim.calls()).filter((call) => call.method !== "GET" && !call.path.endsWith("/by_tags")),
    ).toEqual([]);
  });

  it.each([
    [{ modelIds: [] }],
    [{ modelIds: Array.from({ length: 51 }, (_, i) => `m${i}`) }],
    [{ modelIds: ["nope"] }],
    [{}],
    [{ modelIds: ["gpt-5"], x: 1 }],
  ])("rejects %j with 400", async (body) => {
    const answer = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalidRequest");
  });

  it("an unknown market → 404", async () => {
    const answer = await world.call("PUT", `${world.marketsUrl()}/2036/en/models`, { modelIds: ["gpt-5"] });
    expect(answer.status).toBe(404);
  });
});
