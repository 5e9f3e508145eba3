import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { Need } from "../../../src/domain/allocation.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import {
  type MeteredWriteContext,
  type MeteredWriteGuardFactory,
  needOf,
} from "../../../src/domain/meteredWrites.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { fakeGuard } from "../../support/fakeGuards.ts";
import { expectNoLeaks, type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";

/**
 * The seam to allocation (spec/allocation.md §5): every metered upstream write goes through a
 * guarded section that was told the units of all its writes up front, one section per operation
 * and written workspace (SPEC §7: one resources read per request), and deletes are followed by a
 * release. A recording guard stands in for the allocation guard and notes each section's need and,
 * for each write, what it says it stages and whether the upstream call really ran inside it.
 */
interface RecordedWrite {
  callSite: string;
  stages: Need | undefined;
  upstreamCallsInside: number;
}

interface Recorded {
  event: "section" | "release";
  need?: Need;
  writes?: RecordedWrite[];
  floor?: unknown;
  context: MeteredWriteContext;
}

let world: MarketWorld;
const recorded: Recorded[] = [];
/** When set, the next section is refused with this registry code before any write (the pool said no). */
let refuseNextSection: "orgPoolExhausted" | undefined;

const recordingGuards: MeteredWriteGuardFactory = (context) =>
  fakeGuard({
    async section(needSource, work) {
      if (refuseNextSection) {
        const code = refuseNextSection;
        refuseNextSection = undefined;
        throw new ServiceError(code);
      }
      const section: Recorded = { event: "section", need: await needOf(needSource), writes: [], context };
      const result = await work(async (callSite, fn, stagesSource) => {
        const stages = stagesSource === undefined ? undefined : await needOf(stagesSource);
        const before = world.sim.simulator.calls.size;
        const written = await fn();
        section.writes!.push({
          callSite,
          stages,
          upstreamCallsInside: world.sim.simulator.calls.size - before,
        });
        return written;
      });
      recorded.push(section);
      return result;
    },
    async releaseSurplus(floor) {
      recorded.push({ event: "release", floor, context });
    },
  });

/** Each section as [need, [callSite, stages] of its writes]. */
const sections = () =>
  recorded
    .filter((r) => r.event === "section")
    .map((r) => [r.need, r.writes!.map((w) => [w.callSite, w.stages])]);
const allWrites = () => recorded.flatMap((r) => r.writes ?? []);

beforeAll(async () => {
  world = await startMarketWorld({ meteredWrites: recordingGuards });
});

afterAll(async () => {
  expectNoLeaks(world.responses, { bearers: [world.token], workspaceIds: [GOLD_PARENT_WORKSPACE_ID] });
  await world.close();
});

beforeEach(() => {
  recorded.length = 0;
});

describe("metered writes go through the guard with their need", () => {
  it("create market: ONE section {projects:1} for the project, each model add (stages 0) and the publish", async () => {
    const answer = await world.call("POST", world.marketsUrl(), { market: "US", languageCode: "en" });
    expect(answer.status).toBe(201);
    expect(sections()).toEqual([
      [
        { projects: 1 },
        [
          ["projectCreate", { projects: 1 }],
          ["modelAdd", { prompts: 0 }],
          ["modelAdd", { prompts: 0 }],
          ["publish", undefined],
        ],
      ],
    ]);
    expect(allWrites().every((w) => w.upstreamCallsInside === 1)).toBe(true);
    expect(recorded[0]!.context).toMatchObject({
      orgId: world.orgId,
      brandId: world.brandId,
      flat: true,
      subWorkspaceId: null,
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
      bearer: world.token,
    });
  });

  it("bulk prompts: ONE section per workspace covering newTexts × models, the create then the publish", async () => {
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
    expect(sections()).toEqual([
      [
        { prompts: 6 },
        [
          ["promptCreate", { prompts: 6 }],
          ["publish", undefined],
        ],
      ],
    ]);
    // The two tag sets need two create calls, both inside the one guarded write.
    expect(allWrites()[0]!.upstreamCallsInside).toBe(2);
  });

  it("replace models: ONE section needing texts × added for the adds and the publish; net removal releases", async () => {
    const added = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, {
      modelIds: ["search-gpt", "google-ai-overview", "perplexity", "gpt-5"],
    });
    expect(added.status).toBe(200);
    expect(sections()).toEqual([
      [
        { prompts: 4 },
        [
          ["modelAdd", { prompts: 4 }],
          ["publish", undefined],
        ],
      ],
    ]);
    expect(recorded.some((r) => r.event === "release")).toBe(false);
    recorded.length = 0;
    const removed = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, { modelIds: ["gpt-5"] });
    expect(removed.status).toBe(200);
    expect(sections()).toEqual([[{ prompts: 0 }, [["publish", undefined]]]]);
    expect(recorded.at(-1)).toMatchObject({ event: "release", floor: { projects: 1, prompts: 100 } });
  });

  it("replace models answers the pool's refusal as the registry code its route declares (409 orgPoolExhausted)", async () => {
    refuseNextSection = "orgPoolExhausted";
    const refused = await world.call("PUT", `${world.marketsUrl()}/2840/en/models`, {
      modelIds: ["search-gpt", "google-ai-overview", "perplexity", "gpt-5"],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("orgPoolExhausted");
    // createTestApp fails the suite at close on any code a route answered without declaring it.
    const document = world.t.app.swagger() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const conflict = document.paths[
      "/v2/orgs/{orgId}/brands/{brandId}/serenity/markets/{geoTargetId}/{languageCode}/models"
    ]!.put!.responses["409"] as {
      content: {
        "application/problem+json": {
          schema: { allOf: [unknown, { properties: { code: { enum: string[] } } }] };
        };
      };
    };
    expect(conflict.content["application/problem+json"].schema.allOf[1].properties.code.enum).toContain(
      "orgPoolExhausted",
    );
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
    expect(sections()).toEqual([[{}, [["publish", {}]]]]);
    expect(recorded.at(-1)).toMatchObject({ event: "release", floor: { projects: 1, prompts: 100 } });
  });

  it("bulk prompts into two markets of one workspace: still ONE section, needs summed", async () => {
    const market = await world.call("POST", world.marketsUrl(), {
      market: "FR",
      languageCode: "fr",
      modelIds: ["search-gpt", "perplexity"],
    });
    expect(market.status).toBe(201);
    try {
      recorded.length = 0;
      const answer = await world.call("POST", world.promptsUrl(), {
        items: [
          { text: "two markets en", geoTargetId: 2840, languageCode: "en" },
          { text: "two markets fr", geoTargetId: 2250, languageCode: "fr" },
        ],
      });
      expect(answer.status).toBe(201);
      // One text into US/en (1 model left: gpt-5) + one into FR/fr (2 models).
      expect(sections()).toHaveLength(1);
      expect(recorded[0]!.need).toEqual({ prompts: 3 });
      expect(
        allWrites()
          .map((w) => [w.callSite, w.stages])
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      ).toEqual([
        ["promptCreate", { prompts: 1 }],
        ["promptCreate", { prompts: 2 }],
        ["publish", undefined],
        ["publish", undefined],
      ]);
    } finally {
      expect((await world.call("DELETE", `${world.marketsUrl()}/2250/fr`)).status).toBe(204);
    }
  });

  it("market delete releases surplus after the project is gone", async () => {
    const answer = await world.call("DELETE", `${world.marketsUrl()}/2840/en`);
    expect(answer.status).toBe(204);
    expect(recorded.map((r) => r.event)).toEqual(["release"]);
    expect(world.projects()).toEqual([]);
  });
});
