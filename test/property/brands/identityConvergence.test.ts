import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { brands, markets } from "../../../src/db/schema.ts";
import { domainKey, projectBrandNames } from "../../../src/domain/brandIdentity.ts";
import type { GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import type { JobWorker } from "../../../src/jobs/worker.ts";
import { applyMarketIdentity } from "../../../src/markets/marketIdentity.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { type MarketWorld, startMarketWorld } from "../../support/marketWorld.ts";
import { workerOf } from "../../support/testApp.ts";

/**
 * Random sequences of brand PATCHes (aliases, competitors, URLs drawn from small pools, so names,
 * domains and URLs come and go and come back), each followed by a propagation that dies after a
 * random number of upstream calls (its writes so far stay upstream, as a SIGKILLed worker's do),
 * then the jobs run to their end: every market's project carries the LAST identity exactly — its
 * brand names, one benchmark per competitor domain and nothing more, the CI competitors, the brand
 * URLs with their kinds — and records the brand's version.
 */

const ALIASES = ["Acme Co", "ACME Labs", "Acmé", "AC"];
const COMPETITORS = [
  { name: "Globex", domain: "globex.example" },
  { name: "Hooli", domain: "hooli.example" },
  { name: "Initech", domain: "initech.example" },
];
const ALIAS_POOLS = [
  ["Rival", "Other One"],
  ["Second", "Third"],
  ["Fourth", "Fifth"],
];
const URLS = ["https://acme.example/", "https://social.example/acme", "https://press.example/acme"];
const KINDS = ["owned", "social", "earned"] as const;

const identity = fc.record({
  aliases: fc.subarray(ALIASES),
  competitors: fc.subarray(COMPETITORS).chain((picked) =>
    fc
      // Aliases move between competitors across PATCHes (the competitor at an index changes),
      // never shared within one (that is a 400).
      .tuple(...picked.map((_, index) => fc.subarray(ALIAS_POOLS[index]!)))
      .map((aliases) =>
        picked.map((competitor, index) => ({ ...competitor, aliases: aliases[index] ?? [] })),
      ),
  ),
  urls: fc
    .subarray(URLS)
    .chain((picked) =>
      fc
        .tuple(...picked.map(() => fc.constantFrom(...KINDS)))
        .map((kinds) => picked.map((url, index) => ({ url, kind: kinds[index]! }))),
    ),
});

let world: MarketWorld;
let worker: JobWorker;

beforeAll(async () => {
  world = await startMarketWorld();
  worker = workerOf(world.t, createLogger({ level: "silent" }));
  for (const [market, languageCode] of [
    ["US", "en"],
    ["FR", "fr"],
  ]) {
    const answer = await world.call("POST", world.marketsUrl(), { market, languageCode });
    expect(answer.status).toBe(201);
  }
});

afterAll(async () => {
  await world.close();
});

class Crash extends Error {}

/** The projects of the brand's markets (the gold parent holds others, never touched). */
async function marketProjects() {
  const rows = await world.t.db.db.select().from(markets).where(eq(markets.brandId, world.brandId));
  const ids = new Set(rows.map((row) => row.projectId));
  return world.projects().filter((project) => ids.has(project.id));
}

/** The gateway as a worker that dies after `calls` upstream calls sees it. */
function dyingAfter(gateway: GatewayClient, calls: number): Pick<GatewayClient, "projects" | "benchmarks"> {
  let left = calls;
  const wrap = <T extends object>(client: T): T =>
    new Proxy(client, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (left-- <= 0) throw new Crash("the worker died");
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return { projects: wrap(gateway.projects), benchmarks: wrap(gateway.benchmarks) };
}

describe("brand identity convergence", () => {
  it("random PATCH sequences with crashes end with every market equal to the last identity", async () => {
    const gateway = world.t.gateway!;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ identity, crashAfter: fc.nat({ max: 12 }) }), { minLength: 1, maxLength: 4 }),
        async (steps) => {
          for (const step of steps) {
            const answer = await world.call(
              "PATCH",
              `/v2/orgs/${world.orgId}/brands/${world.brandId}`,
              step.identity,
            );
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            const [brand] = await world.t.db.db.select().from(brands).where(eq(brands.id, world.brandId));
            for (const project of await marketProjects()) {
              await applyMarketIdentity(
                dyingAfter(gateway, step.crashAfter),
                { bearer: world.token, ws: project.workspaceId, pid: project.id },
                brand!,
              ).catch((error: unknown) => {
                if (!(error instanceof Crash)) throw error;
              });
            }
          }
          await worker.drain();

          const [brand] = await world.t.db.db.select().from(brands).where(eq(brands.id, world.brandId));
          const last = steps.at(-1)!.identity;
          const rows = await world.t.db.db.select().from(markets).where(eq(markets.brandId, world.brandId));
          expect(rows.map((row) => row.identityVersion)).toEqual(rows.map(() => brand!.identityVersion));
          for (const project of await marketProjects()) {
            expect(project.brandNames).toEqual(projectBrandNames(brand!));
            const benchmarks = [...project.benchmarks.values()];
            const main = benchmarks.filter((b) => b.mainBrand);
            expect(main).toHaveLength(1);
            const others = benchmarks.filter((b) => !b.mainBrand);
            expect(others.map((b) => [domainKey(b.domain), b.brandName, b.brandAliases]).sort()).toEqual(
              last.competitors.map((c) => [c.domain, c.name, c.aliases]).sort(),
            );
            expect(project.ciCompetitors.map((c) => c.domain).sort()).toEqual(
              last.competitors.map((c) => c.domain).sort(),
            );
            expect([...main[0]!.brandUrls.values()].map((u) => [u.url, u.type]).sort()).toEqual(
              last.urls.map((u) => [u.url, u.kind]).sort(),
            );
            expect(project.dirty).toBe(false);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
