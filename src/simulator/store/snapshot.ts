import { z } from "zod";

import { legacyLanguageId, legacyModelId } from "./legacyCatalogueIds.ts";

/**
 * The JSON form of the store: what `GET /__sim/dump` returns (plus `calls`) and what
 * `POST /__sim/seed`, `createSimulator({seed})` and `serenity simulator --seed <file>` load, so a dump
 * can be saved and replayed. A workspace's `status` is the status it settles to (`not ready` makes a
 * zombie); `resources` are the true counters (no read lag applied).
 */
const units = z
  .object({
    used: z.number().int().min(0).default(0),
    drafted: z.number().int().min(0).default(0),
    total: z.number().int().min(0).default(0),
  })
  .default({ used: 0, drafted: 0, total: 0 });

/**
 * A catalogue id: a UUID string, as live; a dump saved before the simulator served the live
 * catalogues carries a small integer, mapped here by model key or language code.
 */
function catalogueIdOf(legacy: (id: number) => string | undefined, what: string) {
  return z.union([z.string().min(1), z.number().int()]).transform((value, context) => {
    if (typeof value === "string") return value;
    const id = legacy(value);
    if (id === undefined) {
      context.addIssue({ code: "custom", message: `${what} ${value} has no live catalogue entry` });
      return z.NEVER;
    }
    return id;
  });
}

const perDimension = z
  .object({ projects: z.number().int().min(0).default(0), prompts: z.number().int().min(0).default(0) })
  .default({ projects: 0, prompts: 0 });

export const snapshotWorkspaceSchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  status: z.string().default("created"),
  /** A dump's settled status (its `status` is what a read answers now); wins over `status` when given. */
  settles_to: z.string().optional(),
  parent_id: z.string().min(1).nullable().default(null),
  limits_enabled: z.object({ ai: z.boolean() }).default({ ai: false }),
  resources: z.object({ projects: units, prompts: units }).default({
    projects: { used: 0, drafted: 0, total: 0 },
    prompts: { used: 0, drafted: 0, total: 0 },
  }),
});

export const snapshotProjectSchema = z.object({
  id: z.string().min(1),
  workspace_id: z.string().min(1),
  name: z.string(),
  brand_name_display: z.string().default(""),
  brand_names: z.array(z.string()).default([]),
  domain: z.string().default(""),
  primary_url: z.string().nullable().default(null),
  country_code: z.string(),
  location_id: z.number().int(),
  location_name: z.string().default(""),
  language_id: catalogueIdOf(legacyLanguageId, "language"),
  publish_state: z.enum(["draft", "live", "initial_publish_failed"]).default("draft"),
  staged: perDimension,
  published: perDimension,
  models: z
    .array(z.object({ id: z.string().min(1), model_id: catalogueIdOf(legacyModelId, "model") }))
    .default([]),
  prompts: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string(),
        live: z.boolean().default(false),
        live_name: z.string().optional(),
        tag_ids: z.array(z.string()).default([]),
        metadata: z.record(z.string(), z.unknown()).default({}),
      }),
    )
    .default([]),
  tags: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string(),
        parent_id: z.string().nullable().default(null),
        live: z.boolean().default(false),
      }),
    )
    .default([]),
  benchmarks: z
    .array(
      z.object({
        id: z.string().min(1),
        brand_name: z.string(),
        brand_aliases: z.array(z.string()).default([]),
        domain: z.string().default(""),
        primary_url: z.string().default(""),
        color: z.string().default(""),
        favorite: z.boolean().default(false),
        main_brand: z.boolean().default(false),
        brand_urls: z
          .array(z.object({ id: z.string().min(1), url: z.string(), type: z.string().default("") }))
          .default([]),
      }),
    )
    .default([]),
  ci_competitors: z
    .array(z.object({ id: z.string().min(1), domain: z.string(), color: z.string().default("") }))
    .default([]),
});

export const snapshotSchema = z.object({
  workspaces: z.array(snapshotWorkspaceSchema),
  projects: z.array(snapshotProjectSchema).default([]),
});

export type SimulatorSnapshot = z.input<typeof snapshotSchema>;
export type ParsedSnapshot = z.output<typeof snapshotSchema>;
export type SnapshotWorkspace = z.output<typeof snapshotWorkspaceSchema>;
export type SnapshotProject = z.output<typeof snapshotProjectSchema>;
