/**
 * A brand's identity as its markets carry it upstream (spec/api.md §5, docs/decisions/0041): the
 * display name and aliases (the project's `brand_name_display` / `brand_names`), the domain, the
 * competitors (benchmarks and CI competitors) and the brand's own, social and earned URLs (the
 * own-brand benchmark's brand URLs). Pure rules: bounds, the conflicts a PATCH must refuse, and
 * the comparison keys the propagation and the classifier share.
 */

export const MAX_ALIASES = 20;
export const MAX_COMPETITORS = 20;
export const MAX_COMPETITOR_ALIASES = 20;
export const MAX_BRAND_URLS = 50;

export const URL_KINDS = ["owned", "social", "earned"] as const;
export type UrlKind = (typeof URL_KINDS)[number];

export interface Competitor {
  name: string;
  domain: string;
  aliases: string[];
}

export interface BrandUrl {
  url: string;
  kind: UrlKind;
}

export interface BrandIdentity {
  name: string;
  domain: string | null;
  primaryUrl: string | null;
  aliases: string[];
  competitors: Competitor[];
  urls: BrandUrl[];
}

/** How names are compared (uniqueness, alias clashes): trimmed, case-folded, Unicode NFKC. */
export function nameKey(name: string): string {
  return name.normalize("NFKC").trim().toLocaleLowerCase("und");
}

/** A domain as benchmarks are matched by it: lower case, no `www.` prefix, no trailing dot. */
export function domainKey(domain: string): string {
  return domain
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^www\./, "");
}

/** One problem of an identity, with the JSON pointer (RFC 6901) of the field in a PATCH body. */
export interface IdentityProblem {
  pointer: string;
  message: string;
}

/**
 * What an identity may not be, whichever PATCH produced it (the body's own fields merged over the
 * stored ones): an alias equal to a competitor's name or alias or to the brand's own name would
 * make one mention count for two brands, and so would a name or alias two competitors share; two
 * competitors on one domain would be one benchmark
 * upstream (benchmarks are matched by domain); a URL listed twice is one brand URL upstream.
 */
export function identityProblems(identity: BrandIdentity): IdentityProblem[] {
  const problems: IdentityProblem[] = [];
  const competitorNames = new Map<string, number>();
  identity.competitors.forEach((competitor, index) => {
    // A name or alias two competitors share is one benchmark name twice: the upstream refuses it.
    [competitor.name, ...competitor.aliases].forEach((name, at) => {
      const owner = competitorNames.get(nameKey(name));
      if (owner !== undefined && owner !== index)
        problems.push({
          pointer: at === 0 ? `/competitors/${index}/name` : `/competitors/${index}/aliases/${at - 1}`,
          message: "is another competitor's name or alias",
        });
      competitorNames.set(nameKey(name), index);
    });
  });
  const seenAliases = new Set<string>();
  identity.aliases.forEach((alias, index) => {
    const key = nameKey(alias);
    if (competitorNames.has(key))
      problems.push({ pointer: `/aliases/${index}`, message: "must not equal a competitor's name or alias" });
    else if (seenAliases.has(key))
      problems.push({ pointer: `/aliases/${index}`, message: "is listed twice" });
    seenAliases.add(key);
  });
  if (competitorNames.has(nameKey(identity.name)))
    problems.push({ pointer: "/name", message: "must not equal a competitor's name or alias" });
  const domains = new Set<string>();
  identity.competitors.forEach((competitor, index) => {
    const key = domainKey(competitor.domain);
    if (domains.has(key))
      problems.push({ pointer: `/competitors/${index}/domain`, message: "is another competitor's domain" });
    else if (identity.domain && key === domainKey(identity.domain))
      problems.push({ pointer: `/competitors/${index}/domain`, message: "is the brand's own domain" });
    domains.add(key);
  });
  const urls = new Set<string>();
  identity.urls.forEach((entry, index) => {
    if (urls.has(entry.url)) problems.push({ pointer: `/urls/${index}/url`, message: "is listed twice" });
    urls.add(entry.url);
  });
  return problems;
}

/** The names a market's project carries: the display name first, then each alias once. */
export function projectBrandNames(identity: Pick<BrandIdentity, "name" | "aliases">): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const name of [identity.name, ...identity.aliases]) {
    const key = nameKey(name);
    if (seen.has(key)) continue;
    seen.add(key);
    names.push(name);
  }
  return names;
}
