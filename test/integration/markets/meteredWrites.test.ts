import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { Need } from "../../../src/domain/allocation.ts";
import type { MeteredWriteContext, MeteredWriteGuardFactory } from "../../../src/domain/meteredWrites.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { expectNoLeaks, type MarketsWorld, startMarketsWorld } from "./harness.ts";

/**
 * The seam to allocation (spec/allocation.md §5): every metered upstream write goes through the
 * guard with its need, and deletes are followed by a release. A recording guard stands in for the
 * allocation guard and notes, for each write, whether the upstream call really ran inside it.
 */
interface Recorded {
  event: "write" | "release";
  callSite?: string;
  need?: Need;
  upstreamCallsInside?: number;
  floor?: unknown;
  context: MeteredWriteContext;
}

let world: MarketsWorld;
const recorded: Recorded[] = [];

const recordingGuards: MeteredWriteGuardFactory = (context) => ({
  async write(callSite, need, fn) {
    const before = world.sim.simulator.calls.size;
    const result = await fn();
    recorded.push({
      event: "write",
      callSite,
      need,
      upstreamCallsInside: world.sim.simulator.calls.size - before,
      context,
    });
    return result;
  },
  async releaseSurplus(floor) {
    recorded.push({ event: "release", floor, context });
  },
});

const writes = () => recorded.filter((r) => r.event === "write").map((r) => [r.callSite, r.need]);

beforeAll(async () => {
  world = await startMarketsWorld({ meteredWrites: recordingGuards });
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

beforeEach(() => {
  recorded.length = 0;
});

describe("metered writes go through the guard with their need", () => {
  it("create market: project {projects:1}, each model add {prompts:0}, publish {}", async () => {
    const answer = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
    expect(answer.status).toBe(201);
    expect(writes()).toEqual([
      ["projectCreate", { projects: 1 }],
      ["modelAdd", { prompts: 0 }],
      ["modelAdd", { prompts: 0 }],
      ["publish", {}],
    ]);
    expect(recorded.every((r) => r.upstreamCallsInside === 1)).toBe(true);
    expect(recorded[0]!.context).toMatchObject({
      orgId: world.orgId,
      brandId: world.brandId,
      flat: true,
      subWorkspaceId: null,
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
      bearer: world.token,
    });
  });

  it("bulk prompts: ONE write per project covering newTexts × models, then one publish", async () => {
    const first = await world.call("POST", world.promptsUrl(), {
      items: [
        { text: "a", geoTargetId: 2840, languageCode: "en" },
        { text: "b", geoTargetId: 2840, languageCode: "en", category: "x" },
      ],
    });
    expect(first.status).toBe(201);
    recorded.length = 0;
    const answer = await world.call("POST", world.promptsUrl(), {
      items: [
        { text: "a", geoTargetId: 2840, languageCode: "en" },
        { text: "c", geoTargetId: 2840, languageCode: "en" },
        { text: "d", geoTargetId: 2840, languageCode: "en", category: "y" },
        { text: "c", geoTargetId: 2840, languageCode: "en" },
      ],
    });
    expect(answer.status).toBe(207);
    // Two new texts ("c", "d") × three models; "a" exists and the second "c" is a duplicate.
    expect(writes()).toEqual([
      ["promptCreate", { prompts: 6 }],
      ["publish", {}],
    ]);
    // The two tag sets need two create calls, both inside the one guarded write.
    expect(recorded[0]!.upstreamCallsInside).toBe(2);
  });

  it("replace models: each add needs the project's text count; net removal releases surplus", async () => {
    const added = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, {
      modelIds: ["search-gpt", "google-ai-overview", "perplexity", "gpt-5"],
    });
    expect(added.status).toBe(200);
    expect(writes()).toEqual([
      ["modelAdd", { prompts: 4 }],
      ["publish", {}],
    ]);
    expect(recorded.some((r) => r.event === "release")).toBe(false);
    recorded.length = 0;
    const removed = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, { modelIds: ["gpt-5"] });
    expect(removed.status).toBe(200);
    expect(writes()).toEqual([["publish", {}]]);
    expect(recorded.at(-1)).toMatchObject({ event: "release", floor: { projects: 1, prompts: 100 } });
  });

  it("prompt delete publishes through the guard and releases surplus", async () => {
    const page = await world.call(
      "GET",
      `${world.promptsUrl()}?geoTargetId=2840&languageCode=en&includeDrafts=true`,
    );
    recorded.length = 0;
    const answer = await world.call("DELETE", world.promptsUrl(), {
      geoTargetId: 2840,
      languageCode: "en",
      ids: [page.body.items[0].id],
    });
    expect(answer.status).toBe(204);
    expect(writes()).toEqual([["publish", {}]]);
    expect(recorded.at(-1)).toMatchObject({ event: "release", floor: { projects: 1, prompts: 100 } });
  });

  it("market delete releases surplus after the project is gone", async () => {
    const answer = await world.call("DELETE", `${world.marketsUrl()}/2840/en`);
    expect(answer.status).toBe(204);
    expect(recorded.map((r) => r.event)).toEqual(["release"]);
    expect(world.projects()).toEqual([]);
  });
});
