import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";

import type { SimContext } from "../../context.ts";
import { notFound, parseOrReject, peError } from "../../http/responses.ts";
import { rejectedAliasesOf } from "../../store/simulatorStore.ts";
import type { SimBenchmark, SimBrandUrl, SimProject } from "../../store/types.ts";
import { findProject, type ProjectParams } from "./lookup.ts";

/**
 * Project Engine: a project's AI benchmarks, their brand URLs and the project's CI competitors
 * (../shared/fixtures/semrush/project-engine.openapi.json). Benchmarks are created through the v2
 * batch (`existing_count` for one already on that domain), listed, updated and deleted in v1; the
 * own brand's benchmark (`main_brand`) comes with the project and cannot be deleted (409). Brand
 * URLs are per benchmark, unique per project by URL (a duplicate is skipped on create, 409 on
 * update). Every change is draft-layer: a live project reads `live_with_unpublished_updates` until
 * it is published again.
 */

// The published AIOBenchmarkRequest: every field optional.
const benchmarkBody = z.object({
  brand_name: z.string().optional(),
  brand_aliases: z.array(z.string()).optional(),
  color: z.string().optional(),
  domain: z.string().optional(),
  favorite: z.boolean().optional(),
  main_brand: z.boolean().optional(),
  primary_url: z.string().optional(),
});
type BenchmarkBody = z.output<typeof benchmarkBody>;

const idsBody = z.object({ ids: z.array(z.string()) });

// The published BrandURLRequest: `url` required, `type` a free string of at most 32 characters.
const brandUrlBody = z.object({ url: z.string().min(1), type: z.string().max(32).optional() });

const ciCompetitorsBody = z.object({
  ci_competitors: z
    .array(z.object({ domain: z.string().optional(), color: z.string().optional() }))
    .optional(),
});

const V1 = "/v1/workspaces/:ws/projects/:pid";
const V2 = "/v2/workspaces/:ws/projects/:pid";

type BenchmarkParams = ProjectParams & { bid: string };

const domainKey = (domain: string) =>
  domain
    .trim()
    .toLowerCase()
    .replace(/^www\./, "");
const nameKey = (name: string) => name.trim().toLowerCase();

/** The own brand's benchmark a new project starts with, from its create body. */
export function mainBrandBenchmark(
  id: string,
  project: { brand_name_display: string; brand_names: string[]; domain: string },
  now: number,
): SimBenchmark {
  const aliases = project.brand_names.filter((name) => nameKey(name) !== nameKey(project.brand_name_display));
  return {
    id,
    brandName: project.brand_name_display,
    brandAliases: aliases,
    rejectedAliases: rejectedAliasesOf(aliases),
    domain: project.domain,
    primaryUrl: "",
    color: "",
    favorite: false,
    mainBrand: true,
    createdAt: now,
    brandUrls: new Map(),
  };
}

export function benchmarkView(project: SimProject, benchmark: SimBenchmark) {
  return {
    id: benchmark.id,
    project_id: project.id,
    brand_name: benchmark.brandName,
    brand_aliases: [...benchmark.brandAliases],
    rejected_brand_aliases: [...benchmark.rejectedAliases],
    domain: benchmark.domain,
    root_domain: domainKey(benchmark.domain),
    primary_url: benchmark.primaryUrl,
    color: benchmark.color,
    favorite: benchmark.favorite,
    main_brand: benchmark.mainBrand,
    products_count: 0,
    product_names: [],
  };
}

function brandUrlView(project: SimProject, benchmark: SimBenchmark, entry: SimBrandUrl) {
  return {
    id: entry.id,
    benchmark_id: benchmark.id,
    project_id: project.id,
    url: entry.url,
    type: entry.type,
    created_at: new Date(entry.createdAt).toISOString(),
    updated_at: new Date(entry.updatedAt).toISOString(),
  };
}

/** Whether a name or alias of `body` is another benchmark's name or alias (the published 409). */
function nameClash(project: SimProject, body: BenchmarkBody, except: string | null): boolean {
  const names = [body.brand_name, ...(body.brand_aliases ?? [])].filter((n): n is string => !!n).map(nameKey);
  return [...project.benchmarks.values()].some(
    (other) =>
      other.id !== except &&
      [other.brandName, ...other.brandAliases].some((name) => names.includes(nameKey(name))),
  );
}

function touched(ctx: SimContext, project: SimProject): void {
  if (project.publishState === "live") project.dirty = true;
  project.updatedAt = ctx.now();
}

function findBenchmark(
  ctx: SimContext,
  params: BenchmarkParams,
  reply: FastifyReply,
): { project: SimProject; benchmark: SimBenchmark } | undefined {
  const found = findProject(ctx, params, reply);
  if (!found) return undefined;
  const benchmark = found.project.benchmarks.get(params.bid);
  if (!benchmark) {
    void notFound(reply);
    return undefined;
  }
  return { project: found.project, benchmark };
}

function projectUrls(project: SimProject): Map<string, { benchmark: SimBenchmark; entry: SimBrandUrl }> {
  const urls = new Map<string, { benchmark: SimBenchmark; entry: SimBrandUrl }>();
  for (const benchmark of project.benchmarks.values())
    for (const entry of benchmark.brandUrls.values()) urls.set(entry.url, { benchmark, entry });
  return urls;
}

export function registerBenchmarkRoutes(app: FastifyInstance, ctx: SimContext): void {
  app.get<{ Params: ProjectParams; Querystring: { main_brand?: string } }>(
    `${V1}/ai_models/benchmarks`,
    async (request, reply) => {
      const found = findProject(ctx, request.params, reply);
      if (!found) return reply;
      const { project } = found;
      const mainOnly = request.query.main_brand === "true";
      // Favorites first, then newest.
      const listed = [...project.benchmarks.values()]
        .filter((benchmark) => !mainOnly || benchmark.mainBrand)
        .map((benchmark, index) => ({ benchmark, index }))
        .sort(
          (a, b) =>
            Number(b.benchmark.favorite) - Number(a.benchmark.favorite) ||
            b.benchmark.createdAt - a.benchmark.createdAt ||
            b.index - a.index,
        );
      return { aio_benchmarks: listed.map(({ benchmark }) => benchmarkView(project, benchmark)) };
    },
  );

  app.post<{ Params: ProjectParams }>(`${V2}/ai_models/benchmarks`, async (request, reply) => {
    const body = parseOrReject(z.array(benchmarkBody), request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const fresh: BenchmarkBody[] = [];
    let existing = 0;
    for (const entry of body) {
      const domain = domainKey(entry.domain ?? "");
      const already = [...project.benchmarks.values()].some(
        (other) =>
          (entry.main_brand && other.mainBrand) || (domain !== "" && domainKey(other.domain) === domain),
      );
      if (already) existing += 1;
      else fresh.push(entry);
    }
    // All or nothing: a name or alias another benchmark (or another of this batch) has is a 409.
    for (const [index, entry] of fresh.entries()) {
      const batchClash = fresh.slice(0, index).some((other) => sameNames(other, entry));
      if (batchClash || nameClash(project, entry, null))
        return peError(reply, 409, "duplicate brand name or alias");
    }
    const now = ctx.now();
    const ids = fresh.map((entry) => {
      const aliases = entry.brand_aliases ?? [];
      const benchmark: SimBenchmark = {
        id: ctx.newId(),
        brandName: entry.brand_name ?? "",
        brandAliases: aliases,
        rejectedAliases: rejectedAliasesOf(aliases),
        domain: entry.domain ?? "",
        primaryUrl: entry.primary_url ?? "",
        color: entry.color ?? "",
        favorite: entry.favorite ?? false,
        mainBrand: entry.main_brand ?? false,
        createdAt: now,
        brandUrls: new Map(),
      };
      project.benchmarks.set(benchmark.id, benchmark);
      return benchmark.id;
    });
    if (ids.length > 0) touched(ctx, project);
    return { ids, existing_count: existing };
  });

  app.put<{ Params: BenchmarkParams }>(`${V1}/ai_models/benchmarks/:bid`, async (request, reply) => {
    const body = parseOrReject(benchmarkBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findBenchmark(ctx, request.params, reply);
    if (!found) return reply;
    const { project, benchmark } = found;
    if (nameClash(project, body, benchmark.id)) return peError(reply, 409, "duplicate brand name or alias");
    if (body.brand_name !== undefined) benchmark.brandName = body.brand_name;
    if (body.brand_aliases !== undefined) {
      benchmark.brandAliases = body.brand_aliases;
      benchmark.rejectedAliases = rejectedAliasesOf(body.brand_aliases);
    }
    if (body.domain !== undefined) benchmark.domain = body.domain;
    if (body.primary_url !== undefined) benchmark.primaryUrl = body.primary_url;
    if (body.color !== undefined) benchmark.color = body.color;
    if (body.favorite !== undefined) benchmark.favorite = body.favorite;
    touched(ctx, project);
    return reply.code(202).send();
  });

  app.delete<{ Params: ProjectParams }>(`${V1}/ai_models/benchmarks`, async (request, reply) => {
    const body = parseOrReject(idsBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    const doomed = body.ids.filter((id) => project.benchmarks.has(id));
    if (doomed.some((id) => project.benchmarks.get(id)!.mainBrand))
      return peError(reply, 409, "main brand benchmark cannot be deleted");
    for (const id of doomed) project.benchmarks.delete(id);
    if (doomed.length > 0) touched(ctx, project);
    return reply.code(202).send();
  });

  app.get<{ Params: BenchmarkParams; Querystring: { page?: string; limit?: string } }>(
    `${V2}/aio/benchmarks/:bid/brand_urls`,
    async (request, reply) => {
      const found = findBenchmark(ctx, request.params, reply);
      if (!found) return reply;
      const { project, benchmark } = found;
      const page = Math.max(1, Number(request.query.page ?? 1) || 1);
      const limit = Math.max(1, Math.min(1000, Number(request.query.limit ?? 100) || 100));
      const entries = [...benchmark.brandUrls.values()].slice((page - 1) * limit, page * limit);
      return { brand_urls: entries.map((entry) => brandUrlView(project, benchmark, entry)) };
    },
  );

  app.post<{ Params: BenchmarkParams }>(`${V2}/aio/benchmarks/:bid/brand_urls`, async (request, reply) => {
    const body = parseOrReject(z.array(brandUrlBody), request.body, reply, "pe");
    if (!body) return reply;
    const found = findBenchmark(ctx, request.params, reply);
    if (!found) return reply;
    const { project, benchmark } = found;
    const known = projectUrls(project);
    const now = ctx.now();
    const ids: string[] = [];
    let existing = 0;
    for (const entry of body) {
      if (known.has(entry.url)) {
        existing += 1;
        continue;
      }
      const created: SimBrandUrl = {
        id: ctx.newId(),
        url: entry.url,
        type: entry.type ?? "",
        createdAt: now,
        updatedAt: now,
      };
      benchmark.brandUrls.set(created.id, created);
      known.set(created.url, { benchmark, entry: created });
      ids.push(created.id);
    }
    if (ids.length > 0) touched(ctx, project);
    return { ids, existing_count: existing };
  });

  app.put<{ Params: BenchmarkParams & { uid: string } }>(
    `${V2}/aio/benchmarks/:bid/brand_urls/:uid`,
    async (request, reply) => {
      const body = parseOrReject(brandUrlBody, request.body, reply, "pe");
      if (!body) return reply;
      const found = findBenchmark(ctx, request.params, reply);
      if (!found) return reply;
      const { project, benchmark } = found;
      const entry = benchmark.brandUrls.get(request.params.uid);
      if (!entry) return notFound(reply);
      const holder = projectUrls(project).get(body.url);
      if (holder && holder.entry.id !== entry.id) return peError(reply, 409, "duplicate URL for project");
      entry.url = body.url;
      if (body.type !== undefined) entry.type = body.type;
      entry.updatedAt = ctx.now();
      touched(ctx, project);
      return reply.code(202).send();
    },
  );

  app.delete<{ Params: BenchmarkParams }>(`${V2}/aio/benchmarks/:bid/brand_urls`, async (request, reply) => {
    const body = parseOrReject(idsBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findBenchmark(ctx, request.params, reply);
    if (!found) return reply;
    const { project, benchmark } = found;
    // IDs that do not belong to the benchmark are ignored.
    const doomed = body.ids.filter((id) => benchmark.brandUrls.delete(id));
    if (doomed.length > 0) touched(ctx, project);
    return reply.code(202).send();
  });

  app.put<{ Params: ProjectParams }>(`${V1}/ci/competitors`, async (request, reply) => {
    const body = parseOrReject(ciCompetitorsBody, request.body, reply, "pe");
    if (!body) return reply;
    const found = findProject(ctx, request.params, reply);
    if (!found) return reply;
    const { project } = found;
    // A full replace: existing entries are deleted, then the request's inserted.
    project.ciCompetitors = (body.ci_competitors ?? []).map((competitor) => ({
      id: ctx.newId(),
      domain: competitor.domain ?? "",
      color: competitor.color ?? "",
    }));
    touched(ctx, project);
    return {
      ci_competitors: project.ciCompetitors.map((competitor) => ({ ...competitor, project_id: project.id })),
    };
  });
}

function sameNames(a: BenchmarkBody, b: BenchmarkBody): boolean {
  const names = (entry: BenchmarkBody) =>
    [entry.brand_name, ...(entry.brand_aliases ?? [])].filter((n): n is string => !!n).map(nameKey);
  const left = names(a);
  return names(b).some((name) => left.includes(name));
}
