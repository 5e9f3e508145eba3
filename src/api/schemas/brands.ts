import { z } from "zod";

import { isoTimestamp, plainText, uuid } from "./common.ts";

export const brandSchema = z
  .object({
    id: uuid,
    orgId: uuid,
    name: z.string(),
    domain: z.string().nullable(),
    primaryUrl: z.string().nullable(),
    status: z.enum(["pending", "active", "deleted"]),
    mode: z.enum(["subworkspace", "flat"]),
    subWorkspaceId: z.string().nullable(),
    provisioning: z.object({
      status: z.enum(["pending", "ready", "failed"]).nullable(),
      error: z.string().nullable(),
      jobId: z.string().nullable(),
    }),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: "Brand" });

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/,
    "must be a domain name such as example.com",
  );

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048);

export const createBrandBody = z.strictObject({
  name: plainText(200),
  domain: domain.nullable().optional(),
  primaryUrl: httpUrl.nullable().optional(),
  async: z.boolean({ message: "async must be a boolean" }).optional(),
});

export const brandList = z.object({ items: z.array(brandSchema) });
