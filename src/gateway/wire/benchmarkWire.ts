import { z } from "zod";

import { optional, wireId } from "./common.ts";

/** Benchmark, brand URL and CI competitor answers (project-engine.openapi.json), mapped to domain shapes. */

export interface Benchmark {
  id: string;
  brandName: string;
  brandAliases: string[];
  /** Aliases the upstream refused for this benchmark (`rejected_brand_aliases`). */
  rejectedAliases: string[];
  domain: string;
  mainBrand: boolean;
}

export interface BrandUrlEntry {
  id: string;
  url: string;
  /** The published free string (at most 32 characters); Serenity writes `owned`, `social`, `earned`. */
  type: string;
}

export interface CreatedIds {
  ids: string[];
  existingCount: number;
}

const benchmarkWire = z
  .looseObject({
    id: wireId,
    brand_name: optional(z.string()),
    brand_aliases: optional(z.array(z.string())),
    rejected_brand_aliases: optional(z.array(z.string())),
    domain: optional(z.string()),
    main_brand: optional(z.boolean()),
  })
  .transform((b): Benchmark => ({
    id: b.id,
    brandName: b.brand_name ?? "",
    brandAliases: b.brand_aliases ?? [],
    rejectedAliases: b.rejected_brand_aliases ?? [],
    domain: b.domain ?? "",
    mainBrand: b.main_brand ?? false,
  }));

export const benchmarkListWire = z
  .looseObject({ aio_benchmarks: optional(z.array(benchmarkWire)) })
  .transform((list) => list.aio_benchmarks ?? []);

export const createdIdsWire = z
  .looseObject({ ids: optional(z.array(wireId)), existing_count: optional(z.number()) })
  .transform((created): CreatedIds => ({
    ids: created.ids ?? [],
    existingCount: created.existing_count ?? 0,
  }));

const brandUrlWire = z
  .looseObject({ id: wireId, url: optional(z.string()), type: optional(z.string()) })
  .transform((entry): BrandUrlEntry => ({ id: entry.id, url: entry.url ?? "", type: entry.type ?? "" }));

export const brandUrlListWire = z
  .looseObject({ brand_urls: optional(z.array(brandUrlWire)) })
  .transform((list) => list.brand_urls ?? []);

export const ciCompetitorsWire = z
  .looseObject({
    ci_competitors: optional(z.array(z.looseObject({ domain: optional(z.string()) }))),
  })
  .transform((answer) => (answer.ci_competitors ?? []).map((competitor) => competitor.domain ?? ""));
