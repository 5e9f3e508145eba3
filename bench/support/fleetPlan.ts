/**
 * The fleet benchmark's mix of orgs, drawn from a seeded generator so two runs of one size onboard
 * the same fleet: most orgs have 1–3 brands of 1–2 markets and 20–100 prompts; about one in a
 * hundred is large (8 brands, 2–3 markets each, 400 prompts); every fourth parent meters AI.
 */
import { seededRandom } from "../../src/simulator/http/faults.ts";

export interface MarketPlan {
  market: string;
  languageCode: string;
  geoTargetId: number;
}

export interface BrandPlan {
  /** The first market is created with the brand (US, English); prompts go there. */
  markets: MarketPlan[];
  prompts: number;
}

export interface OrgPlan {
  index: number;
  large: boolean;
  metered: boolean;
  brands: BrandPlan[];
}

const US: MarketPlan = { market: "US", languageCode: "en", geoTargetId: 2840 };
const OTHERS: MarketPlan[] = [
  { market: "FR", languageCode: "fr", geoTargetId: 2250 },
  { market: "DE", languageCode: "de", geoTargetId: 2276 },
];

function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

export function planFleet(orgs: number, seed = 42): OrgPlan[] {
  const random = seededRandom(seed);
  const pick = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  // At least one large org once the fleet has 50.
  const largeEvery = 100;
  return Array.from({ length: orgs }, (_, index) => {
    const large = index % largeEvery === largeEvery / 2 || (orgs >= 50 && orgs < 100 && index === 25);
    const brandCount = large ? 8 : ((roll) => (roll < 0.5 ? 1 : roll < 0.85 ? 2 : 3))(random());
    const prompts = large ? 400 : pick(20, 100);
    const perBrand = split(prompts, brandCount);
    const brands = perBrand.map((count) => {
      const extra = large ? pick(1, 2) : random() < 0.3 ? 1 : 0;
      return { markets: [US, ...OTHERS.slice(0, extra)], prompts: count };
    });
    return { index, large, metered: index % 4 === 0, brands };
  });
}

export function describeFleet(plans: OrgPlan[]) {
  const brands = plans.reduce((sum, plan) => sum + plan.brands.length, 0);
  const markets = plans.reduce(
    (sum, plan) => sum + plan.brands.reduce((inner, brand) => inner + brand.markets.length, 0),
    0,
  );
  const prompts = plans.reduce(
    (sum, plan) => sum + plan.brands.reduce((inner, brand) => inner + brand.prompts, 0),
    0,
  );
  return {
    orgs: plans.length,
    large: plans.filter((plan) => plan.large).length,
    metered: plans.filter((plan) => plan.metered).length,
    brands,
    markets,
    prompts,
  };
}
