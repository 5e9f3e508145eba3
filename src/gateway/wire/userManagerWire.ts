import { z } from "zod";

import type { AiResources, Workspace, WorkspaceDetails } from "../types.ts";
import { normaliseStatus } from "../workspaceStatus.ts";
import { wireId, wireParentId } from "./common.ts";

/** User Manager response schemas (spec/gateway.md §2, §3), mapped to domain shapes. */

export const workspaceWire = z
  .looseObject({ id: wireId, title: z.string(), status: z.string(), parent_id: wireParentId })
  .transform((w): Workspace => ({
    id: w.id,
    title: w.title,
    status: normaliseStatus(w.status),
    parentId: w.parent_id,
  }));

export const workspaceDetailsWire = z
  .looseObject({
    id: wireId,
    title: z.string(),
    status: z.string(),
    parent_id: wireParentId,
    limits_enabled: z.looseObject({ ai: z.boolean() }),
  })
  .transform((w): WorkspaceDetails => ({
    id: w.id,
    title: w.title,
    status: normaliseStatus(w.status),
    parentId: w.parent_id,
    limitsEnabled: { ai: w.limits_enabled.ai },
  }));

export const statusWire = z.looseObject({ status: z.string() }).transform((s) => normaliseStatus(s.status));

export const familyWire = z.array(workspaceWire);

const usageWire = z.looseObject({ used: z.number(), drafted: z.number(), total: z.number() });

export const resourcesWire = z
  .looseObject({
    product_resources: z.looseObject({
      ai: z.looseObject({
        resources: z.looseObject({ projects: usageWire, prompts: usageWire }),
      }),
    }),
  })
  .transform((doc): AiResources => {
    const { projects, prompts } = doc.product_resources.ai.resources;
    return {
      projects: { used: projects.used, drafted: projects.drafted, total: projects.total },
      prompts: { used: prompts.used, drafted: prompts.drafted, total: prompts.total },
    };
  });
