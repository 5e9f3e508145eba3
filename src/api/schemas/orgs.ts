import { z } from "zod";

import { isoTimestamp, plainText, uuid, workspaceIdText } from "./common.ts";

const workspaceId = workspaceIdText;

export const orgSchema = z
  .object({
    id: uuid,
    name: z.string(),
    parentWorkspaceId: z.string().nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: "Org" });

export const createOrgBody = z.strictObject({
  name: plainText(200),
  parentWorkspaceId: workspaceId.nullable().optional(),
});

export const updateOrgBody = z
  .strictObject({
    name: plainText(200).optional(),
    parentWorkspaceId: workspaceId.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "at least one field is required" });

export const orgList = z.object({ items: z.array(orgSchema) });
