import type { GatewayTransport } from "./transport.ts";
import {
  type Benchmark,
  benchmarkListWire,
  type BrandUrlEntry,
  brandUrlListWire,
  ciCompetitorsWire,
  type CreatedIds,
  createdIdsWire,
} from "./wire/benchmarkWire.ts";

export type { Benchmark, BrandUrlEntry, CreatedIds };

/** What a benchmark create or update sends (the published AIOBenchmarkRequest, camelCased). */
export interface BenchmarkInput {
  brandName: string;
  brandAliases: string[];
  domain: string;
  mainBrand?: boolean;
}

/**
 * The Project Engine's AI benchmarks of a project, their brand URLs and the project's CI
 * competitors (project-engine.openapi.json). Benchmarks are created through the v2 batch (v1
 * create is deprecated), listed, updated and deleted in v1 (the only versions that have them).
 * Every write lands in the project's draft layer: publish the project afterwards.
 */
export interface BenchmarkClient {
  /** `GET /v1/…/{pid}/ai_models/benchmarks?draft=true`: favorites first, then newest. */
  listBenchmarks(bearer: string, workspaceId: string, projectId: string): Promise<Benchmark[]>;
  /** `POST /v2/…/{pid}/ai_models/benchmarks` (batch; one already on a domain counts as existing). */
  createBenchmarks(
    bearer: string,
    workspaceId: string,
    projectId: string,
    benchmarks: BenchmarkInput[],
  ): Promise<CreatedIds>;
  /** `PUT /v1/…/{pid}/ai_models/benchmarks/{id}` (202). */
  updateBenchmark(
    bearer: string,
    workspaceId: string,
    projectId: string,
    benchmarkId: string,
    benchmark: BenchmarkInput,
  ): Promise<void>;
  /** `DELETE /v1/…/{pid}/ai_models/benchmarks` `{ids}` (202; the own brand's is a 409). */
  deleteBenchmarks(bearer: string, workspaceId: string, projectId: string, ids: string[]): Promise<void>;
  /** `GET /v2/…/{pid}/aio/benchmarks/{id}/brand_urls?draft=true`. */
  listBrandUrls(
    bearer: string,
    workspaceId: string,
    projectId: string,
    benchmarkId: string,
  ): Promise<BrandUrlEntry[]>;
  /** `POST /v2/…/aio/benchmarks/{id}/brand_urls` (batch; a URL the project has is skipped). */
  createBrandUrls(
    bearer: string,
    workspaceId: string,
    projectId: string,
    benchmarkId: string,
    urls: { url: string; type: string }[],
  ): Promise<CreatedIds>;
  /** `PUT /v2/…/aio/benchmarks/{id}/brand_urls/{urlId}` (202). */
  updateBrandUrl(
    bearer: string,
    workspaceId: string,
    projectId: string,
    benchmarkId: string,
    urlId: string,
    url: { url: string; type: string },
  ): Promise<void>;
  /** `DELETE /v2/…/aio/benchmarks/{id}/brand_urls` `{ids}` (202; foreign ids ignored). */
  deleteBrandUrls(
    bearer: string,
    workspaceId: string,
    projectId: string,
    benchmarkId: string,
    ids: string[],
  ): Promise<void>;
  /** `PUT /v1/…/{pid}/ci/competitors`: replaces the project's CI competitors whole. */
  replaceCiCompetitors(
    bearer: string,
    workspaceId: string,
    projectId: string,
    domains: string[],
  ): Promise<string[]>;
}

const PROJECT = "/v1/workspaces/{ws}/projects/{pid}";
const PROJECT_V2 = "/v2/workspaces/{ws}/projects/{pid}";
const BRAND_URLS = `${PROJECT_V2}/aio/benchmarks/{bid}/brand_urls`;

function benchmarkBody(input: BenchmarkInput) {
  return {
    brand_name: input.brandName,
    brand_aliases: input.brandAliases,
    domain: input.domain,
    ...(input.mainBrand === undefined ? {} : { main_brand: input.mainBrand }),
  };
}

export function createBenchmarkClient(transport: GatewayTransport): BenchmarkClient {
  const pe = transport.send.bind(transport);
  const inProject = (ws: string, pid: string) => ({ ws, pid });
  return {
    listBenchmarks: (bearer, ws, pid) =>
      pe(bearer, {
        gateway: "pe",
        method: "GET",
        route: `${PROJECT}/ai_models/benchmarks`,
        params: inProject(ws, pid),
        query: { draft: true },
        response: benchmarkListWire,
      }),
    createBenchmarks: (bearer, ws, pid, benchmarks) =>
      pe(bearer, {
        gateway: "pe",
        method: "POST",
        route: `${PROJECT_V2}/ai_models/benchmarks`,
        params: inProject(ws, pid),
        body: benchmarks.map(benchmarkBody),
        response: createdIdsWire,
        // One already on a domain is reported as existing, never created twice.
        idempotent: true,
      }),
    updateBenchmark: async (bearer, ws, pid, bid, benchmark) => {
      await pe(bearer, {
        gateway: "pe",
        method: "PUT",
        route: `${PROJECT}/ai_models/benchmarks/{bid}`,
        params: { ...inProject(ws, pid), bid },
        body: benchmarkBody(benchmark),
        idempotent: true,
      });
    },
    deleteBenchmarks: async (bearer, ws, pid, ids) => {
      await pe(bearer, {
        gateway: "pe",
        method: "DELETE",
        route: `${PROJECT}/ai_models/benchmarks`,
        params: inProject(ws, pid),
        body: { ids },
      });
    },
    listBrandUrls: (bearer, ws, pid, bid) =>
      pe(bearer, {
        gateway: "pe",
        method: "GET",
        route: BRAND_URLS,
        params: { ...inProject(ws, pid), bid },
        query: { draft: true, page: 1, limit: 100 },
        response: brandUrlListWire,
      }),
    createBrandUrls: (bearer, ws, pid, bid, urls) =>
      pe(bearer, {
        gateway: "pe",
        method: "POST",
        route: BRAND_URLS,
        params: { ...inProject(ws, pid), bid },
        body: urls,
        response: createdIdsWire,
        // Duplicates by (project, url) are skipped upstream.
        idempotent: true,
      }),
    updateBrandUrl: async (bearer, ws, pid, bid, uid, url) => {
      await pe(bearer, {
        gateway: "pe",
        method: "PUT",
        route: `${BRAND_URLS}/{uid}`,
        params: { ...inProject(ws, pid), bid, uid },
        body: url,
        idempotent: true,
      });
    },
    deleteBrandUrls: async (bearer, ws, pid, bid, ids) => {
      await pe(bearer, {
        gateway: "pe",
        method: "DELETE",
        route: BRAND_URLS,
        params: { ...inProject(ws, pid), bid },
        body: { ids },
      });
    },
    replaceCiCompetitors: (bearer, ws, pid, domains) =>
      pe(bearer, {
        gateway: "pe",
        method: "PUT",
        route: `${PROJECT}/ci/competitors`,
        params: inProject(ws, pid),
        body: { ci_competitors: domains.map((domain) => ({ domain })) },
        response: ciCompetitorsWire,
        // A full replace: the same body twice leaves the same list.
        idempotent: true,
      }),
  };
}
