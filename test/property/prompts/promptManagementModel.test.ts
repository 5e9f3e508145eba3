import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { SimProject } from "../../../src/simulator/store/types.ts";
import { type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";

/**
 * Random sequences of create / edit (a new text) / move (a prompt to a category) / delete, and of
 * category renames and re-parents, on one market, over HTTP against the simulator: after every
 * sequence, Serenity's view (its list, drafts included) and the upstream's (the simulator's
 * project) hold the same prompts — ids, texts and top-level categories — and the same category
 * tree, and both equal a model of what each answered (a refused step changes nothing: 409
 * `promptExists`, 409 `categoryExists`, 400 for a cycle or a tree too deep).
 */

const US = { geoTargetId: 2840, languageCode: "en" };
const TEXTS = ["alpha?", "beta?", "gamma?", "delta?", "epsilon?"];
const CATEGORIES = ["red", "green", null] as const;

type Op =
  | { kind: "create"; text: string; category: string | null }
  | { kind: "edit"; pick: number; text: string }
  | { kind: "move"; pick: number; category: string | null }
  | { kind: "delete"; pick: number }
  | { kind: "renameCategory"; pick: number; name: string }
  | { kind: "nestCategory"; pick: number; under: number | null };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("create" as const),
    text: fc.constantFrom(...TEXTS),
    category: fc.constantFrom(...CATEGORIES),
  }),
  fc.record({ kind: fc.constant("edit" as const), pick: fc.nat(), text: fc.constantFrom(...TEXTS) }),
  fc.record({ kind: fc.constant("move" as const), pick: fc.nat(), category: fc.constantFrom(...CATEGORIES) }),
  fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant("renameCategory" as const),
    pick: fc.nat(),
    name: fc.constantFrom("red", "green", "blue"),
  }),
  fc.record({
    kind: fc.constant("nestCategory" as const),
    pick: fc.nat(),
    under: fc.option(fc.nat(), { nil: null }),
  }),
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
/** Category id → its name and parent (null = top level). */
type Tree = Map<string, { name: string; parentId: string | null }>;

const categoriesUrl = () =>
  `/v2/orgs/${world.orgId}/brands/${world.brandId}/serenity/markets/2840/en/categories`;

function upstreamTree(): Tree {
  const root = [...project.tags.values()].find((tag) => tag.parentId === null && tag.name === "category");
  const tree: Tree = new Map();
  if (!root) return tree;
  let level = [root.id];
  while (level.length > 0) {
    const next: string[] = [];
    for (const tag of project.tags.values()) {
      if (tag.parentId === null || !level.includes(tag.parentId)) continue;
      tree.set(tag.id, { name: tag.name, parentId: tag.parentId === root.id ? null : tag.parentId });
      next.push(tag.id);
    }
    level = next;
  }
  return tree;
}

async function serenityTree(): Promise<Tree> {
  const answer = await world.call("GET", categoriesUrl());
  expect(answer.status).toBe(200);
  const tree: Tree = new Map();
  for (const node of answer.body.items as { id: string; name: string; parentId: string | null }[])
    tree.set(node.id, { name: node.name, parentId: node.parentId });
  return tree;
}

function below(tree: Tree, id: string): Set<string> {
  const found = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [other, node] of tree)
      if (node.parentId !== null && found.has(node.parentId) && !found.has(other)) {
        found.add(other);
        grew = true;
      }
  }
  return found;
}

function depthOf(tree: Tree, id: string | null): number {
  let depth = 0;
  for (let at = id; at !== null; at = tree.get(at)!.parentId) depth += 1;
  return depth;
}

/** A prompt's category as both views show it: its category tag when that is top-level. */
function visibleCategories(prompts: Map<string, { text: string; tagId: string | null }>, tree: Tree): State {
  const state: State = new Map();
  for (const [id, prompt] of prompts) {
    const tag = prompt.tagId === null ? undefined : tree.get(prompt.tagId);
    state.set(id, { text: prompt.text, category: tag && tag.parentId === null ? tag.name : null });
  }
  return state;
}

/** The id of the top-level category named `name` upstream (made by the step just answered). */
function topLevelId(name: string | null): string | null {
  if (name === null) return null;
  return [...upstreamTree()].find(([, node]) => node.parentId === null && node.name === name)![0];
}

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
  it("under random create / edit / move / delete / category rename and re-parent sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const tree: Tree = upstreamTree();
        const prompts = new Map(
          [...project.prompts.values()].map((prompt) => [
            prompt.id,
            { text: prompt.name, tagId: prompt.tagIds.find((id) => tree.has(id)) ?? null },
          ]),
        );
        for (const step of ops) {
          const ids = [...prompts.keys()];
          const categoryIds = [...tree.keys()];
          const target = ids.length === 0 ? undefined : ids[("pick" in step ? step.pick : 0) % ids.length];
          if (step.kind === "create") {
            const answer = await world.call("POST", world.promptsUrl(), {
              items: [{ ...US, text: step.text, ...(step.category ? { category: step.category } : {}) }],
            });
            const item = answer.body.items[0] as { status: number; id: string };
            expect([200, 201]).toContain(item.status);
            // The write resolves its tags before it matches texts: a category named is made even
            // when the text exists (200, the prompt unchanged).
            const tagId = topLevelId(step.category);
            if (tagId !== null && !tree.has(tagId)) tree.set(tagId, { name: step.category!, parentId: null });
            if (item.status === 201) prompts.set(item.id, { text: step.text, tagId });
          } else if (step.kind === "renameCategory" || step.kind === "nestCategory") {
            if (categoryIds.length === 0) continue;
            const id = categoryIds[step.pick % categoryIds.length]!;
            const node = tree.get(id)!;
            const name = step.kind === "renameCategory" ? step.name : node.name;
            const parentId =
              step.kind === "renameCategory" || step.under === null
                ? step.kind === "renameCategory"
                  ? node.parentId
                  : null
                : categoryIds[step.under % categoryIds.length]!;
            const answer = await world.call(
              "PATCH",
              `${categoriesUrl()}/${id}`,
              step.kind === "renameCategory" ? { name } : { parentId },
            );
            const height =
              Math.max(...[...below(tree, id)].map((other) => depthOf(tree, other))) - depthOf(tree, id);
            const expected =
              parentId !== null && below(tree, id).has(parentId)
                ? 400
                : depthOf(tree, parentId) + 1 + height > 4
                  ? 400
                  : [...tree].some(([other, n]) => other !== id && n.parentId === parentId && n.name === name)
                    ? 409
                    : 200;
            expect(answer.status, JSON.stringify(answer.body)).toBe(expected);
            if (expected === 200) tree.set(id, { name, parentId });
          } else if (target === undefined) {
            continue;
          } else if (step.kind === "edit") {
            const answer = await world.call("PATCH", `${world.promptsUrl()}/${target}`, {
              ...US,
              text: step.text,
            });
            const taken = [...prompts].some(([id, prompt]) => id !== target && prompt.text === step.text);
            expect(answer.status).toBe(taken ? 409 : 200);
            if (!taken) prompts.set(target, { ...prompts.get(target)!, text: step.text });
          } else if (step.kind === "move") {
            const answer = await world.call("PATCH", `${world.promptsUrl()}/${target}`, {
              ...US,
              category: step.category,
            });
            expect(answer.status).toBe(200);
            const tagId = topLevelId(step.category);
            if (tagId !== null && !tree.has(tagId)) tree.set(tagId, { name: step.category!, parentId: null });
            prompts.set(target, { ...prompts.get(target)!, tagId });
          } else {
            expect((await world.call("DELETE", world.promptsUrl(), { ...US, ids: [target] })).status).toBe(
              204,
            );
            prompts.delete(target);
          }
          // After every step, not only at the end: a divergence is reported at the step that made it.
          expect(upstreamTree(), JSON.stringify(step)).toEqual(tree);
        }
        const model = visibleCategories(prompts, tree);
        expect(upstreamTree()).toEqual(tree);
        expect(await serenityTree()).toEqual(tree);
        const upstream = upstreamState();
        expect(upstream).toEqual(model);
        expect(await serenityState()).toEqual(upstream);
      }),
      { numRuns: 25 },
    );
  });
});
