import type { BrandRow } from "../db/brands/brandRow.ts";
import type { MarketRow } from "../db/markets/marketRow.ts";
import type { OrgWithMetering } from "../db/orgs/orgRow.ts";
import { domainKey, nameKey, projectBrandNames } from "../domain/brandIdentity.ts";
import type { MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";
import type { Benchmark, BenchmarkInput } from "../gateway/benchmarkClient.ts";
import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { marketWriteTarget, meteredWriteGuardFor } from "./writeTarget.ts";

export interface MarketIdentitySyncDeps {
  gateway: Pick<GatewayClient, "projects" | "benchmarks">;
  meteredWrites: MeteredWriteGuardFactory;
}

/** Which parts of a project differed from the brand's identity (and were written). */
export interface IdentityDrift {
  brandNames: boolean;
  benchmarks: boolean;
  ciCompetitors: boolean;
  brandUrls: boolean;
}

export interface MarketIdentityOutcome {
  /** Whether anything was written upstream (then the project was published). */
  changed: boolean;
  /**
   * The project had unpublished changes before this sync wrote anything: a sync that died after
   * its writes and before its publish leaves them so, and the next one must still publish.
   */
  unpublished: boolean;
  drift: IdentityDrift;
  /** The own-brand benchmark's `rejected_brand_aliases` after the sync. */
  rejectedAliases: string[];
}

/** The project a sync writes, with the bearer it writes with. */
export type ProjectRef = { bearer: string; ws: string; pid: string };

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join("\n") === [...b].sort().join("\n");

/**
 * Makes one market's project carry the brand's identity (docs/decisions/0041), by difference:
 * - the project's `brand_name_display` / `brand_names` (the display name, then each alias once);
 * - the own brand's benchmark (`main_brand`): its name, aliases and domain; created when missing;
 * - one benchmark per competitor, matched by domain (never created twice: a crash after a create
 *   finds it by its domain), updated when its name or aliases differ, and benchmarks of domains
 *   no longer listed deleted;
 * - the CI competitors (`PUT …/ci/competitors`, domains only), replaced when the set differs;
 * - the brand's URLs as the own-brand benchmark's brand URLs, `type` = the URL's kind.
 * Only what differs is written; the project is published once when anything was (or, asked to, when
 * an earlier sync's writes are still unpublished), through the allocation guard like any publish. Running it again changes nothing, which is what makes the
 * propagation (and the reconciler's drift repair) crash-safe.
 */
export async function syncMarketIdentity(
  deps: MarketIdentitySyncDeps,
  bearer: string,
  org: OrgWithMetering,
  brand: BrandRow,
  market: MarketRow,
  /** More draft-layer writes before the one publish (the prompts' re-tagging); true when it wrote. */
  alsoWrite?: (ref: ProjectRef) => Promise<boolean>,
  /**
   * Also publish when this sync wrote nothing but the project has unpublished changes: only for a
   * market behind the brand's identity version, whose earlier sync may have died between its writes
   * and its publish. A drift pass over a market in step leaves others' drafts (a user's edit in
   * Semrush, a prompt write's) unpublished.
   */
  options: { publishPending?: boolean } = {},
): Promise<MarketIdentityOutcome> {
  const projectId = market.projectId;
  if (!projectId) return { changed: false, unpublished: false, drift: noDrift(), rejectedAliases: [] };
  const ref: ProjectRef = { bearer, ws: market.workspaceId, pid: projectId };
  const outcome = await applyMarketIdentity(deps.gateway, ref, brand);
  if (alsoWrite && (await alsoWrite(ref))) outcome.changed = true;
  if (outcome.changed || (options.publishPending && outcome.unpublished)) {
    const guard = meteredWriteGuardFor(deps.meteredWrites, marketWriteTarget(ref.ws, org), {
      orgId: org.id,
      brandId: brand.id,
      operation: { bearer, requestId: undefined },
    });
    await guard.singleWrite("publish", {}, () =>
      deps.gateway.projects.publishProject(bearer, ref.ws, ref.pid),
    );
  }
  return outcome;
}

const noDrift = (): IdentityDrift => ({
  brandNames: false,
  benchmarks: false,
  ciCompetitors: false,
  brandUrls: false,
});

/**
 * The writes of `syncMarketIdentity` without its publish: for a caller that publishes the project
 * itself (a market create, whose one publish makes the new project live with the identity).
 */
export async function applyMarketIdentity(
  gateway: MarketIdentitySyncDeps["gateway"],
  ref: ProjectRef,
  brand: BrandRow,
): Promise<MarketIdentityOutcome> {
  const drift = noDrift();
  const deps = { gateway };
  const { bearer } = ref;
  const { projects } = gateway;
  const project = await projects.getProject(bearer, ref.ws, ref.pid);
  const names = projectBrandNames(brand);
  if (
    project.brandNameDisplay !== brand.name ||
    JSON.stringify(project.brandNames ?? []) !== JSON.stringify(names)
  ) {
    await projects.patchProject(bearer, ref.ws, ref.pid, { brandNameDisplay: brand.name, brandNames: names });
    drift.brandNames = true;
  }

  const { main, changed: benchmarksChanged } = await syncBenchmarks(deps, ref, brand);
  drift.benchmarks = benchmarksChanged;

  const competitorDomains = brand.competitors.map((competitor) => domainKey(competitor.domain));
  const ciNow = (project.ciCompetitorDomains ?? []).map(domainKey);
  if (!sameSet(ciNow, competitorDomains)) {
    await gateway.benchmarks.replaceCiCompetitors(bearer, ref.ws, ref.pid, competitorDomains);
    drift.ciCompetitors = true;
  }

  drift.brandUrls = await syncBrandUrls(deps, ref, main.id, brand);

  const aliasKeys = new Set(brand.aliases.map(nameKey));
  return {
    changed: Object.values(drift).some(Boolean),
    unpublished: project.publishStatus?.trim().toLowerCase() === "live_with_unpublished_updates",
    drift,
    rejectedAliases: main.rejectedAliases.filter((alias) => aliasKeys.has(nameKey(alias))),
  };
}

/** The own brand's benchmark as the identity wants it. */
function mainBrandInput(brand: BrandRow): BenchmarkInput {
  const aliases = projectBrandNames(brand).slice(1);
  return { brandName: brand.name, brandAliases: aliases, domain: brand.domain ?? "" };
}

/** A benchmark carries `want` (a rejected alias counts as carried: sending it again changes nothing). */
function carries(benchmark: Benchmark, want: BenchmarkInput): boolean {
  const aliases = [...new Set([...benchmark.brandAliases, ...benchmark.rejectedAliases])];
  return (
    benchmark.brandName === want.brandName &&
    sameSet(aliases, want.brandAliases) &&
    domainKey(benchmark.domain) === domainKey(want.domain)
  );
}

async function syncBenchmarks(
  deps: Pick<MarketIdentitySyncDeps, "gateway">,
  ref: ProjectRef,
  brand: BrandRow,
): Promise<{ main: Benchmark; changed: boolean }> {
  const client = deps.gateway.benchmarks;
  let listed = await client.listBenchmarks(ref.bearer, ref.ws, ref.pid);
  let changed = false;
  const wantMain = mainBrandInput(brand);
  const main = listed.find((benchmark) => benchmark.mainBrand);
  const wanted = new Map(
    brand.competitors.map((competitor) => [
      domainKey(competitor.domain),
      { brandName: competitor.name, brandAliases: competitor.aliases, domain: competitor.domain },
    ]),
  );
  // Each wanted domain keeps its first benchmark; the rest (another domain, a second one on a
  // domain) go, and first: a renamed competitor's old benchmark must not clash with its new name.
  const kept = new Map<string, Benchmark>();
  const stale: Benchmark[] = [];
  for (const benchmark of listed) {
    if (benchmark.mainBrand) continue;
    const key = domainKey(benchmark.domain);
    if (wanted.has(key) && !kept.has(key)) kept.set(key, benchmark);
    else stale.push(benchmark);
  }
  if (stale.length > 0) {
    await client.deleteBenchmarks(
      ref.bearer,
      ref.ws,
      ref.pid,
      stale.map((benchmark) => benchmark.id),
    );
    changed = true;
  }
  const pending: { benchmark: Benchmark; want: BenchmarkInput }[] = [];
  if (main && !carries(main, wantMain)) pending.push({ benchmark: main, want: wantMain });
  for (const [key, benchmark] of kept) {
    const want = wanted.get(key)!;
    if (!carries(benchmark, want)) pending.push({ benchmark, want });
  }
  if (pending.length > 0) {
    await updateWithoutClashes(deps, ref, [...(main ? [main] : []), ...kept.values()], pending);
    changed = true;
  }
  const missing: BenchmarkInput[] = [...wanted.entries()]
    .filter(([key]) => !kept.has(key))
    .map(([, want]) => want);
  if (!main) missing.unshift({ ...wantMain, mainBrand: true });
  if (missing.length > 0) {
    await client.createBenchmarks(ref.bearer, ref.ws, ref.pid, missing);
    changed = true;
  }
  // Read back what the upstream made of the own brand's aliases (`rejected_brand_aliases`).
  if (changed) listed = await client.listBenchmarks(ref.bearer, ref.ws, ref.pid);
  const mainNow = listed.find((benchmark) => benchmark.mainBrand);
  if (!mainNow) throw new Error("The project has no own-brand benchmark after creating one.");
  return { main: mainNow, changed };
}

const namesOf = (input: Pick<BenchmarkInput, "brandName" | "brandAliases">) =>
  [input.brandName, ...input.brandAliases].map(nameKey);

/**
 * Benchmark updates in an order the upstream accepts: a name or alias is unique among a project's
 * benchmarks (409 otherwise), so a name moving from one competitor to another (or to the own
 * brand) must leave its old holder first. Each round applies an update whose names no other
 * benchmark holds now; when none can (names moved along a cycle), a pending benchmark that holds a
 * name another pending update wants, and was not reset before, is first set to a neutral form (its
 * domain as its name, no aliases) — a draft-layer state the market's one publish never shows. Each
 * pending benchmark is updated once and reset at most once, so more than 2 × pending rounds is a bug.
 */
async function updateWithoutClashes(
  deps: Pick<MarketIdentitySyncDeps, "gateway">,
  ref: ProjectRef,
  present: Benchmark[],
  pending: { benchmark: Benchmark; want: BenchmarkInput }[],
): Promise<void> {
  const client = deps.gateway.benchmarks;
  const holds = new Map(present.map((benchmark) => [benchmark.id, namesOf(benchmark)]));
  const clashes = (id: string, names: string[]) =>
    [...holds].some(([other, held]) => other !== id && held.some((name) => names.includes(name)));
  const queue = [...pending];
  const reset = new Set<string>();
  const maxRounds = 2 * pending.length;
  for (let round = 0; queue.length > 0; round++) {
    if (round >= maxRounds) {
      throw new Error(`Benchmark updates did not converge within ${maxRounds} rounds.`);
    }
    const next = queue.findIndex(({ benchmark, want }) => !clashes(benchmark.id, namesOf(want)));
    if (next >= 0) {
      const [{ benchmark, want }] = queue.splice(next, 1) as [{ benchmark: Benchmark; want: BenchmarkInput }];
      await client.updateBenchmark(ref.bearer, ref.ws, ref.pid, benchmark.id, want);
      holds.set(benchmark.id, namesOf(want));
      continue;
    }
    const blocker = queue.find(
      ({ benchmark }) =>
        !reset.has(benchmark.id) &&
        queue.some(
          (other) =>
            other.benchmark.id !== benchmark.id &&
            namesOf(other.want).some((name) => holds.get(benchmark.id)?.includes(name)),
        ),
    );
    if (!blocker) throw new Error("Benchmark updates are blocked by a name no pending update frees.");
    const { benchmark, want } = blocker;
    const neutral = {
      brandName: domainKey(want.domain) || benchmark.id,
      brandAliases: [],
      domain: want.domain,
    };
    await client.updateBenchmark(ref.bearer, ref.ws, ref.pid, benchmark.id, neutral);
    holds.set(benchmark.id, namesOf(neutral));
    reset.add(benchmark.id);
  }
}

async function syncBrandUrls(
  deps: Pick<MarketIdentitySyncDeps, "gateway">,
  ref: ProjectRef,
  benchmarkId: string,
  brand: BrandRow,
): Promise<boolean> {
  const client = deps.gateway.benchmarks;
  const existing = await client.listBrandUrls(ref.bearer, ref.ws, ref.pid, benchmarkId);
  const wanted = new Map(brand.urls.map((entry) => [entry.url, entry.kind as string]));
  let changed = false;
  const stale = existing.filter((entry) => !wanted.has(entry.url));
  if (stale.length > 0) {
    await client.deleteBrandUrls(
      ref.bearer,
      ref.ws,
      ref.pid,
      benchmarkId,
      stale.map((entry) => entry.id),
    );
    changed = true;
  }
  const have = new Set<string>();
  for (const entry of existing) {
    const kind = wanted.get(entry.url);
    if (kind === undefined || have.has(entry.url)) continue;
    have.add(entry.url);
    if (entry.type !== kind) {
      await client.updateBrandUrl(ref.bearer, ref.ws, ref.pid, benchmarkId, entry.id, {
        url: entry.url,
        type: kind,
      });
      changed = true;
    }
  }
  const missing = [...wanted.entries()]
    .filter(([url]) => !have.has(url))
    .map(([url, type]) => ({ url, type }));
  if (missing.length > 0) {
    await client.createBrandUrls(ref.bearer, ref.ws, ref.pid, benchmarkId, missing);
    changed = true;
  }
  return changed;
}
