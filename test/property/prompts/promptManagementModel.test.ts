import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { SimProject } from "../../../src/simulator/store/types.ts";
import { type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";

/**
 * Random sequences of create / edit (a new text) / move (a category) / delete on one market, over
 * HTTP against the simulator: after every sequence, Serenity's view (its list, drafts included)
 * and the upstream's (the simulator's project) hold the same prompts — ids, texts and categories —
 * and both equal a model of what each answered (a 409 `promptExists` changes nothing).
 */

const US = { geoTargetId: 2840, languageCode: "en" };
const TEXTS = ["alpha?", "beta?", "gamma?", "delta?", "epsilon?"];
const CATEGORIES = ["red", "green", null] as const;

type Op =
  | { kind: "create"; text: string; category: string | null }
  | { kind: "edit"; pick: number; text: string }
  | { kind: "move"; pick: number; category: string | null }
  | { kind: "delete"; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("create" as const),
    text: fc.constantFrom(...TEXTS),
    category: fc.constantFrom(...CATEGORIES),
  }),
  fc.record({ kind: fc.constant("edit" as const), pick: fc.nat(), text: fc.constantFrom(...TEXTS) }),
  fc.record({ kind: fc.constant("move" as const), pick: fc.nat(), category: fc.constantFrom(...CATEGORIES) }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
);

let world: MarketWorld;
let project: SimProject;

beforeAll(async () => {
  world = await startMarketWorld();
  const made = await world.call("POST", world.marketsUrl(), {
    market: "US",
    languageCode: "en",
    modelIds: ["search-gpt"],
  });
  expect(made.status).toBe(201);
  project = world.projects().find((p) => p.locationId === 2840)!;
});
afterAll(() => world.close());

type State = Map<string, { text: string; category: string | null }>;

function upstreamState(): State {
  const state: State = new Map();
  const categoryRoot = [...project.tags.values()].find(
    (tag) => tag.parentId === null && tag.name === "category",
  );
  for (const prompt of project.prompts.values()) {
    const category = prompt.tagIds
      .map((id) => project.tags.get(id))
      .find((tag) => tag !== undefined && tag.parentId === categoryRoot?.id);
    state.set(prompt.id, { text: prompt.name, category: category?.name ?? null });
  }
  return state;
}

async function serenityState(): Promise<State> {
  const answer = await world.call(
    "GET",
    `${world.promptsUrl()}?geoTargetId=2840&languageCode=en&includeDrafts=true&limit=200`,
  );
  expect(answer.status).toBe(200);
  const state: State = new Map();
  for (const item of answer.body.items as {
    id: string;
    text: string;
    tags: { name: string; dimension: string | null }[];
  }[]) {
    state.set(item.id, {
      text: item.text,
      category: item.tags.find((tag) => tag.dimension === "category")?.name ?? null,
    });
  }
  return state;
}

describe("prompt management keeps Serenity's view and the upstream's equal", () => {
  it("under random create / edit / move / delete sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        const model: State = upstreamState();
        for (const step of ops) {
          const ids = [...model.keys()];
          const target = ids.length === 0 ? undefined : ids[("pick" in step ? step.pick : 0) % ids.length];
          if (step.kind === "create") {
            const answer = await world.call("POST", world.promptsUrl(), {
              items: [{ ...US, text: step.text, ...(step.category ? { category: step.category } : {}) }],
            });
            const item = answer.body.items[0] as { status: number; id: string };
            expect([200, 201]).toContain(item.status);
            if (item.status === 201) model.set(item.id, { text: step.text, category: step.category });
          } else if (target === undefined) {
            continue;
          } else if (step.kind === "edit") {
            const answer = await world.call("PATCH", `${world.promptsUrl()}/${target}`, {
              ...US,
              text: step.text,
            });
            const taken = [...model].some(([id, prompt]) => id !== target && prompt.text === step.text);
            expect(answer.status).toBe(taken ? 409 : 200);
            if (!taken) model.set(target, { ...model.get(target)!, text: step.text });
          } else if (step.kind === "move") {
            const answer = await world.call("PATCH", `${world.promptsUrl()}/${target}`, {
              ...US,
              category: step.category,
            });
            expect(answer.status).toBe(200);
            model.set(target, { ...model.get(target)!, category: step.category });
          } else {
            expect((await world.call("DELETE", world.promptsUrl(), { ...US, ids: [target] })).status).toBe(
              204,
            );
            model.delete(target);
          }
        }
        const upstream = upstreamState();
        expect(upstream).toEqual(model);
        expect(await serenityState()).toEqual(upstream);
      }),
      { numRuns: 12 },
    );
  });
});
