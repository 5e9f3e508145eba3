/**
 * Listing a large market's prompts with a search and a sort (issue 36, item 7): Serenity's
 * `GET …/serenity/prompts` (in-process API, the real gateway client over real HTTP, the in-process
 * simulator) against the upstream's own by-tags call made directly with the same client, side by
 * side in one run, alternating which goes first in each round.
 *
 *   npx tsx bench/prompt-listing.ts [--prompts 10000] [--rounds 60] [--latencies 0,20]
 *
 * The market holds `--prompts` prompts (written through the bulk route, 500 at a time). Three
 * queries are timed: a first page sorted by text with a search, the page a cursor three pages deep
 * points to (same query), and an unfiltered first page sorted by creation time. For each: p50 and
 * p99 of Serenity and of the direct call, their ratio, and Serenity's upstream calls per request
 * (the page itself, plus a tag-tree read when Serenity's record of the market's tags lacks a listed
 * tag or is older than its bound, ADR 0040). Uses DATABASE_URL's server when
 * set (a scratch database is created and dropped), else an embedded PostgreSQL.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import type { ListPromptsRequest } from "../src/gateway/types.ts";
import { UNMETERED_PARENT_WORKSPACE_ID } from "../src/simulator/seeds.ts";
import { startSimulator } from "../src/simulator/startSimulator.ts";
import { inProcessApi, printTable, scratchDatabase } from "./allocation-support.ts";

const { values: args } = parseArgs({
  options: {
    prompts: { type: "string", default: "10000" },
    rounds: { type: "string", default: "60" },
    latencies: { type: "string", default: "0,20" },
  },
});
const PROMPTS = Number(args.prompts);
const ROUNDS = Number(args.rounds);
const LATENCIES = args.latencies.split(",").map(Number);
const PAGE = 50;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

interface Query {
  name: string;
  /** Serenity's query string, without the market's own parameters. */
  serenity: string;
  /** The same request made directly upstream. */
  upstream: ListPromptsRequest;
}

async function main() {
  const scratch = await scratchDatabase("listing");
  const simulator = await startSimulator({ seed: "unmetered" });
  const api = await inProcessApi(scratch.url, simulator.url);
  const { gateway, token } = api;
  const call = async (method: "GET" | "POST", route: string, payload?: object) => {
    const response = await api.call(method, route, payload);
    if (response.status >= 300 && response.status !== 207) {
      throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(response.body)}`);
    }
    return response.body;
  };
  const rows: string[][] = [];
  try {
    const org = await call("POST", "/v2/orgs", {
      name: "Bench",
      parentWorkspaceId: UNMETERED_PARENT_WORKSPACE_ID,
    });
    const brand = await call("POST", `/v2/orgs/${org.id}/brands`, { name: "Acme", domain: "acme.example" });
    const base = `/v2/orgs/${org.id}/brands/${brand.id}/serenity`;
    await call("POST", `${base}/markets`, { market: "US", languageCode: "en" });
    const market = await call("GET", `${base}/markets/2840/en`);
    // A brand without a sub-workspace of its own keeps its projects in the org's parent.
    const brandView = await call("GET", `/v2/orgs/${org.id}/brands/${brand.id}`);
    const workspaceId: string = brandView.subWorkspaceId ?? UNMETERED_PARENT_WORKSPACE_ID;
    const projectId: string = market.projectId;

    const started = performance.now();
    for (let from = 0; from < PROMPTS; from += 500) {
      const items = Array.from({ length: Math.min(500, PROMPTS - from) }, (_, k) => {
        const i = from + k;
        return {
          text:
            i % 7 === 0 ? `which running shoe lasts longest, question ${i}?` : `how to train for race ${i}`,
          geoTargetId: 2840,
          languageCode: "en",
          category: ["pricing", "support", "features"][i % 3],
        };
      });
      const written = await call("POST", `${base}/prompts`, { items });
      const refused = (written.items as { status: number }[]).filter((item) => item.status >= 300);
      if (refused.length > 0)
        throw new Error(`${refused.length} prompts not written: ${JSON.stringify(refused[0])}`);
      process.stdout.write(`\rwriting the market's prompts: ${Math.min(from + 500, PROMPTS)} / ${PROMPTS}`);
    }
    console.log(` (${((performance.now() - started) / 1000).toFixed(1)} s)`);

    const market2 = "geoTargetId=2840&languageCode=en";
    const searchQuery = `search=running%20shoe&sort=text&order=asc&limit=${PAGE}`;
    const deep = await (async () => {
      let cursor: string | null = null;
      for (let page = 0; page < 3; page++) {
        const url: string = `${base}/prompts?${market2}&${searchQuery}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        cursor = ((await call("GET", url)) as { nextCursor: string | null }).nextCursor;
      }
      return cursor;
    })();
    if (!deep) throw new Error("the search matched fewer than four pages: raise --prompts");
    const searched: ListPromptsRequest = {
      search: "running shoe",
      sortField: "name",
      sortDir: "asc",
      limit: 200,
    };
    const queries: Query[] = [
      {
        name: "search + sort by text, first page",
        serenity: searchQuery,
        upstream: { ...searched, page: 1 },
      },
      {
        name: "same, cursor 3 pages deep",
        serenity: `${searchQuery}&cursor=${encodeURIComponent(deep)}`,
        upstream: { ...searched, page: 1 },
      },
      {
        name: "no filter, sort by creation",
        serenity: `sort=createdAt&order=desc&limit=${PAGE}`,
        upstream: { sortField: "created_at", sortDir: "desc", limit: 200, page: 1 },
      },
    ];

    for (const latencyMs of LATENCIES) {
      simulator.simulator.updateSettings({ latencyMs });
      for (const query of queries) {
        const ours: number[] = [];
        const theirs: number[] = [];
        let oursCalls = 0;
        const serenity = async () => {
          const before = simulator.simulator.calls.size;
          const t0 = performance.now();
          await call("GET", `${base}/prompts?${market2}&${query.serenity}`);
          ours.push(performance.now() - t0);
          oursCalls += simulator.simulator.calls.size - before;
        };
        const direct = async () => {
          const t0 = performance.now();
          await gateway.projects.listPrompts(token, workspaceId, projectId, query.upstream);
          theirs.push(performance.now() - t0);
        };
        for (let round = 0; round < ROUNDS; round++) {
          if (round % 2 === 0) {
            await serenity();
            await direct();
          } else {
            await direct();
            await serenity();
          }
        }
        const p50 = [percentile(ours, 50), percentile(theirs, 50)] as const;
        const p99 = [percentile(ours, 99), percentile(theirs, 99)] as const;
        rows.push([
          `${latencyMs}`,
          query.name,
          `${p50[0].toFixed(1)} / ${p50[1].toFixed(1)}`,
          (p50[0] / p50[1]).toFixed(2),
          `${p99[0].toFixed(1)} / ${p99[1].toFixed(1)}`,
          (p99[0] / p99[1]).toFixed(2),
          (oursCalls / ROUNDS).toFixed(1),
        ]);
      }
    }
  } finally {
    await api.close();
    await simulator.close();
    await scratch.drop();
  }

  const header = [
    "upstream latency (ms)",
    "query",
    "p50 Serenity / direct (ms)",
    "p50 ratio",
    "p99 Serenity / direct (ms)",
    "p99 ratio",
    "Serenity's upstream calls",
  ];
  console.log(`\nlisting a market of ${PROMPTS} prompts, ${ROUNDS} rounds per query, alternating order\n`);
  printTable(header, rows);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
