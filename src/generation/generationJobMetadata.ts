import { z } from "zod";

/**
 * The metadata of a `generate-market-prompts` job (spec/generation.md §3). `z.object` strips keys
 * it does not know, so nothing else stored beside it (never a credential: the job record holds
 * only the sealed credential's id) can reach the request mapping and so a generator.
 */

export const catalogueSeedSchema = z.object({
  topic: z.string().min(1),
  volume: z.number().nonnegative(),
  examplePrompts: z.array(z.string()).default([]),
});

export const DEFAULT_PROMPT_COUNT = 50;

export const generationJobMetadataSchema = z.object({
  brandId: z.string().min(1),
  orgId: z.string().min(1),
  workspaceId: z.string().min(1),
  geoTargetId: z.number().int().positive(),
  languageCode: z.string().min(2),
  /** ISO 3166-1 alpha-2 country of the market (`FR`). */
  market: z.string().regex(/^[A-Za-z]{2}$/),
  /** The brand's primary URL, else `https://<domain>` (see `baseUrlFor`). */
  baseUrl: z.url({ protocol: /^https?$/ }),
  brand: z.string().min(1),
  aliases: z.array(z.string()).default([]),
  /** The brand's audience, when it has one; the wire request omits the key otherwise. */
  audience: z.string().min(1).optional(),
  count: z.number().int().min(1).max(100).default(DEFAULT_PROMPT_COUNT),
  seeds: z.array(catalogueSeedSchema),
  /** The user who started the job: stamped as `created_by` on written prompts. */
  callerId: z.string().min(1),
});

export type GenerationJobMetadata = z.infer<typeof generationJobMetadataSchema>;
export type GenerationJobMetadataInput = z.input<typeof generationJobMetadataSchema>;
