import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type LifecycleWorld, POOL, startLifecycleWorld } from "../support/lifecycleWorld.ts";

/**
 * Rounds of eight requests fired at once on one brand — deactivate, activate
 * with US/en, create market FR/fr, delete market FR/fr, replace the US/en models, bulk prompts,
 * list prompts, list markets — once left several sub-workspaces for one brand, each with a live
 * project, or a brand reading deactivated while upstream still held live projects. With the
 * brand's structural operations serialised (docs/decisions/0015), every round may answer busy or
 * conflict, but never leak: afterwards the brand has at most one sub-workspace upstream (its
 * pointer when active), every project under the org's parent is tracked by a market row, and the
 * pool is conserved.
 */
process.env.SERENITY_DYNAMIC_ALLOCATION = "true";

const ROUNDS = 20;
/** What a racing request may answer: done, accepted, or a registry code saying why not now. */
const ALLOWED = new Set([200, 201, 202, 204, 207, 404, 409, 503]);

let w: LifecycleWorld;
beforeAll(async () => {
  w = await startLifecycleWorld();
});
afterAll(() => w?.close());

describe("eight structural and prompt requests racing on one brand", () => {
  it(
    `leaves exactly one sub-workspace and no untracked project after ${ROUNDS} rounds`,
    { timeout: 600_000 },
    async () => {
      const brands = `/v2/orgs/${w.orgId}/brands`;
      const created = await w.http("POST", brands, {
        name: "Racing brand",
        domain: "racing.example",
        semrushMarket: { market: "US", languageCode: "en" },
      });
      expect(created.status).toBe(201);
      const brandId = created.body.id as string;
      const base = `${brands}/${brandId}/serenity`;
      const models = (await w.http("GET", "/v2/serenity/models")).body.items.map((m: { id: string }) => m.id);
      const statuses: Record<string, number[]> = {};

      for (let round = 0; round < ROUNDS; round++) {
        const modelIds = round % 2 === 0 ? models.slice(0, 2) : models.slice(1, 4);
        const requests: [string, Promise<{ status: number }>][] = [
          ["deactivate", w.http("POST", `${base}/deactivate`, {})],
          [
            "activate",
            w.http("POST", `${base}/activate`, {
              markets: [{ market: "US", languageCode: "en" }],
              ...(round % 3 === 2 ? { async: true } : {}),
            }),
          ],
          [
            "createMarket",
            w.http("POST", `${base}/markets`, {
              market: "FR",
              languageCode: "fr",
              ...(round % 4 === 3 ? { async: true } : {}),
            }),
          ],
          ["deleteMarket", w.http("DELETE", `${base}/markets/2250/fr`)],
          ["replaceModels", w.http("PUT", `${base}/markets/2840/en/models`, { modelIds })],
          [
            "bulkPrompts",
            w.http("POST", `${base}/prompts`, {
              items: [
                {
                  text: `What is the best racing shoe, take ${round}?`,
                  geoTargetId: 2840,
                  languageCode: "en",
                },
              ],
            }),
          ],
          ["listPrompts", w.http("GET", `${base}/prompts?geoTargetId=2840&languageCode=en`)],
          ["listMarkets", w.http("GET", `${base}/markets`)],
        ];
        for (const [name, request] of requests) {
          const { status } = await request;
          (statuses[name] ??= []).push(status);
        }
      }
      await w.settled();
      // The race was a race: every structural operation won some rounds.
      expect(statuses.deactivate).toContain(200);
      expect(statuses.activate).toContain(200);
      expect(statuses.createMarket).toContain(201);
      expect(statuses.deleteMarket).toContain(204);
      expect(statuses.replaceModels).toContain(200);

      const brand = (await w.http("GET", `${brands}/${brandId}`)).body;
      const upstream = await w.upstream();
      const titled = upstream.children.filter((child) => child.title === "Racing brand");
      expect(titled.length, JSON.stringify(upstream.children)).toBeLessThanOrEqual(1);
      if (brand.subWorkspaceId) expect(titled.map((child) => child.id)).toEqual([brand.subWorkspaceId]);
      else expect(titled.every((child) => child.projects === 0)).toBe(true);
      expect(upstream.untrackedProjects).toEqual([]);
      const sum = (dim: "projects" | "prompts") =>
        upstream.parentTotals[dim] + upstream.children.reduce((total, child) => total + child.totals[dim], 0);
      expect({ projects: sum("projects"), prompts: sum("prompts") }).toEqual(POOL);

      // And the brand still works: activating it gives it its market in its one sub-workspace.
      const activated = await w.http("POST", `${base}/activate`, {
        markets: [{ market: "US", languageCode: "en" }],
      });
      expect([200, 207]).toContain(activated.status);
      const after = await w.upstream();
      expect(after.children.filter((child) => child.title === "Racing brand")).toHaveLength(1);
      expect(after.untrackedProjects).toEqual([]);
      await w.settled();
      // The harness's invariants, as the upstream reconciler observes them (it does not act).
      await w.expectInvariants();
      // No 5xx of our own making: busy is a 503 with Retry-After, a resource gone meanwhile a 404/409.
      for (const [name, seen] of Object.entries(statuses)) {
        expect(
          seen.filter((status) => !ALLOWED.has(status)),
          name,
        ).toEqual([]);
      }
    },
  );
});
