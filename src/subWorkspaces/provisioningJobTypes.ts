import { z } from "zod";

/**
 * The provisioning family's job types (spec/provisioning.md §5–§6) and the provisioning job's
 * metadata. Internal types are stored on records; public types are what clients see.
 */
export const PROVISION_WORKSPACE_JOB = "provision-workspace";
export const PROVISION_WORKSPACE_PUBLIC = "provisionWorkspace";
export const CREATE_MARKET_JOB = "create-market";
export const ACTIVATE_BRAND_JOB = "activate-brand";
export const ACTIVATE_MARKETS_JOB = "activate-markets";

export type ChainedJobType =
  typeof CREATE_MARKET_JOB | typeof ACTIVATE_BRAND_JOB | typeof ACTIVATE_MARKETS_JOB;

export const chainedJobSchema = z.object({
  type: z.enum([CREATE_MARKET_JOB, ACTIVATE_BRAND_JOB, ACTIVATE_MARKETS_JOB]),
  metadata: z.record(z.string(), z.unknown()),
});

/**
 * `freshlyCreated` says whether THIS attempt created its candidate (cleanup may empty it). It is
 * carried from hop to hop and never re-derived from the brand row, which may belong to a newer
 * attempt by then. `createdAtMs` dates the candidate (the ladder and the settle budget count from it).
 */
export const provisionWorkspaceMetadataSchema = z.object({
  brandId: z.uuid(),
  attemptId: z.uuid(),
  /** Empty on the fast path (a brand with its pointer is polled, never created). */
  parentWorkspaceId: z.string(),
  title: z.string().min(1),
  hop: z.number().int().min(1),
  candidateWorkspaceId: z.string().min(1).optional(),
  freshlyCreated: z.boolean().optional(),
  createdAtMs: z.number().optional(),
  chained: chainedJobSchema.optional(),
});

export type ProvisionWorkspaceMetadata = z.infer<typeof provisionWorkspaceMetadataSchema>;
