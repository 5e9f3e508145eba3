import { z } from "zod";

import type {
  AddedAiModel,
  AiModel,
  AiModelAssignment,
  BrandTopic,
  CreatePromptsResult,
  Language,
  Project,
  Prompt,
  Tag,
} from "../types.ts";
import { optional, wireId, wireParentId } from "./common.ts";

/** Project Engine response schemas (spec/gateway.md §2, §4), mapped to domain shapes. */

export const languageWire = z
  .looseObject({ id: wireId, name: z.string() })
  .transform((l): Language => ({ id: l.id, name: l.name }));

export const aiModelWire = z
  .looseObject({ id: wireId, key: z.string(), name: z.string(), icon: optional(z.string()) })
  .transform((m): AiModel => ({ id: m.id, key: m.key, name: m.name, icon: m.icon }));

// The project read view nests brand, URL, country, location and language under `settings.ai`
// (the ProjectResponse schema; live echoes null for an omitted `brand_names` or location name).
const aiSettingsWire = z.looseObject({
  brand_name_display: optional(z.string()),
  brand_names: optional(z.array(z.string())),
  primary_url: optional(z.string()),
  country: optional(z.looseObject({ code: optional(z.string()) })),
  location: optional(z.looseObject({ id: optional(z.number()), name: optional(z.string()) })),
  language: optional(z.looseObject({ id: optional(wireId), name: optional(z.string()) })),
});

export const projectWire = z
  .looseObject({
    id: wireId,
    name: optional(z.string()),
    publish_status: optional(z.string()),
    domain: optional(z.string()),
    settings: optional(
      z.looseObject({
        ai: optional(aiSettingsWire),
        ci: optional(
          z.looseObject({
            competitors: optional(z.array(z.looseObject({ domain: optional(z.string()) }))),
          }),
        ),
      }),
    ),
  })
  .transform((p): Project => {
    const ai = p.settings?.ai;
    return {
      id: p.id,
      name: p.name,
      publishStatus: p.publish_status,
      domain: p.domain,
      countryCode: ai?.country?.code,
      locationId: ai?.location?.id,
      locationName: ai?.location?.name,
      languageId: ai?.language?.id,
      languageCode: ai?.language?.name,
      primaryUrl: ai?.primary_url,
      brandNameDisplay: ai?.brand_name_display,
      brandNames: ai?.brand_names,
      ciCompetitorDomains: p.settings?.ci?.competitors?.map((competitor) => competitor.domain ?? ""),
    };
  });

/** A catalogue volume: live may send it as a number or a numeric string; anything else reads as 0. */
function topicVolume(value: number | string | undefined): number {
  const volume = typeof value === "string" ? Number(value.trim()) : (value ?? 0);
  return Number.isFinite(volume) && volume > 0 ? volume : 0;
}

// Lenient on purpose: a catalogue entry without text or with a string volume costs that entry
// (generation's seed bounding drops it), never the whole catalogue.
export const brandTopicsWire = z.array(
  z
    .looseObject({
      topic: optional(z.string()),
      volume: optional(z.union([z.number(), z.string()])),
      prompts: optional(z.array(z.string())),
    })
    .transform((t): BrandTopic => ({
      topic: t.topic ?? "",
      volume: topicVolume(t.volume),
      prompts: t.prompts ?? [],
    })),
);

export const aiModelAssignmentsWire = z
  .looseObject({
    items: z.array(
      z
        .looseObject({ id: wireId, model: aiModelWire, prompts_count: optional(z.number()) })
        .transform((a): AiModelAssignment => ({
          assignmentId: a.id,
          model: a.model,
          promptsCount: a.prompts_count ?? 0,
        })),
    ),
  })
  .transform((list) => list.items);

export const addedAiModelWire = z
  .looseObject({ id: wireId, model: optional(aiModelWire) })
  .transform((a): AddedAiModel => ({ assignmentId: a.id, model: a.model }));

const promptTagWire = z
  .looseObject({ id: wireId, name: optional(z.string()), parent_id: wireParentId })
  .transform((t) => ({ id: t.id, name: t.name, parentId: t.parent_id }));

const promptMetadataWire = z
  .looseObject({
    created_at: optional(z.string()),
    created_by: optional(z.string()),
    updated_at: optional(z.string()),
    updated_by: optional(z.string()),
  })
  .transform((m) => ({
    createdAt: m.created_at,
    createdBy: m.created_by,
    updatedAt: m.updated_at,
    updatedBy: m.updated_by,
  }));

export const promptWire = z
  .looseObject({
    id: wireId,
    name: z.string(),
    is_new: optional(z.boolean()),
    tags: optional(z.array(promptTagWire)),
    metadata: optional(promptMetadataWire),
  })
  .transform((p): Prompt => ({
    id: p.id,
    text: p.name,
    isNew: p.is_new ?? false,
    tags: p.tags ?? [],
    metadata: p.metadata,
  }));

export const createPromptsWire = z
  .looseObject({ items: z.array(promptWire), existing_count: optional(z.number()) })
  .transform((r): CreatePromptsResult => ({
    items: r.items,
    existingCount: r.existing_count ?? r.items.filter((p) => !p.isNew).length,
  }));

/**
 * A tag of the tree. The tree read (`AIOTag`) counts its prompts as `prompts_count`; tag create
 * answers `TreeNodeResponse`, which counts them as `keyword_count` (live, and the document).
 */
const treeTagFields = {
  id: wireId,
  name: z.string(),
  parent_id: wireParentId,
  children_count: optional(z.number()),
};

function tagOf(
  t: { id: string; name: string; parent_id: string | null; children_count?: number },
  prompts?: number,
): Tag {
  return {
    id: t.id,
    name: t.name,
    parentId: t.parent_id,
    childrenCount: t.children_count ?? 0,
    promptsCount: prompts ?? 0,
  };
}

export const tagWire = z
  .looseObject({ ...treeTagFields, prompts_count: optional(z.number()) })
  .transform((t) => tagOf(t, t.prompts_count));

export const tagListWire = z.looseObject({ items: z.array(tagWire) }).transform((list) => list.items);

/** A `TreeNodeResponse` (tag create and tag update answer it). */
export const treeNodeWire = z
  .looseObject({ ...treeTagFields, keyword_count: optional(z.number()) })
  .transform((t) => tagOf(t, t.keyword_count));

/** Tag create's answer: a bare array of `TreeNodeResponse`. */
export const createdTagsWire = z.array(treeNodeWire);

/** The v2 rename's `RenamePromptResponse`; every field is optional in the document. */
export const renamedPromptWire = z
  .looseObject({ id: optional(wireId), name: optional(z.string()), is_updated: optional(z.boolean()) })
  .transform((r) => ({ id: r.id, text: r.name, updated: r.is_updated ?? false }));

/** `GET /v2/…/aio/init_status`: `AIOProjectInitializedResponse`. */
export const initStatusWire = z
  .looseObject({ initialized: optional(z.boolean()) })
  .transform((r) => r.initialized ?? false);
