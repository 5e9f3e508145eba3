import { z } from "zod";

import { PAGE_LIMIT_MAX, pageFields, pageQueryFields } from "../paging.ts";
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

/** Orgs page through the whole list by default up to 200 (they were one unpaged list before). */
export const orgListQuery = z.strictObject(pageQueryFields(PAGE_LIMIT_MAX));

export const orgList = z.object(pageFields(orgSchema)).meta({ id: "OrgPage" });
