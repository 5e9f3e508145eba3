import type { GatewayClient } from "../gateway/gatewayClient.ts";
import { atUpstreamEdge } from "../gateway/registryErrors.ts";
import type { Logger } from "../observability/logger.ts";
import { boundSeeds, type CatalogueSeed } from "./seeds.ts";

/**
 * The seeds of one market (spec/generation.md §2 step 2): the `brand-topics` catalogue for the
 * brand's domain and the market's country, read with the caller's bearer from the workspace the
 * brand writes into, bounded by `boundSeeds`. A brand with no domain (and no primary URL to take
 * one from) has no catalogue: no seeds, and no upstream call.
 */
export interface MarketSeedsRequest {
  bearer: string;
  workspaceId: string;
  /** The brand's domain, else its primary URL (its host is used). */
  domain: string | null;
  primaryUrl: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** The host a catalogue is asked about: the domain as given, else the primary URL's host. */
export function catalogueDomainOf(domain: string | null, primaryUrl: string | null): string | null {
  const given = domain?.trim().toLowerCase();
  if (given) return given;
  if (!primaryUrl || !URL.canParse(primaryUrl)) return null;
  return new URL(primaryUrl).hostname || null;
}

export async function fetchMarketSeeds(
  deps: { gateway: GatewayClient; logger: Logger },
  request: MarketSeedsRequest,
): Promise<CatalogueSeed[]> {
  const domain = catalogueDomainOf(request.domain, request.primaryUrl);
  if (domain === null) return [];
  const topics = await atUpstreamEdge(deps.logger, "getBrandTopics", () =>
    deps.gateway.projects.getBrandTopics(request.bearer, request.workspaceId, {
      domain,
      country: request.country,
    }),
  );
  return boundSeeds(topics.map(({ topic, volume, prompts }) => ({ topic, volume, prompts })));
}
