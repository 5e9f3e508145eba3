import { z } from "zod";

import { activationSchema, brandCreated } from "./brands.ts";
import { uuid } from "./common.ts";
import { generationJobResultSchema } from "./generationJobs.ts";
import { createMarketResponse } from "./markets.ts";

/**
 * The `result` of a COMPLETED job, per public job type (docs/decisions/0037, "Names"), as the
 * handlers store it: a provisioning-family job stores the `{status, body}` its synchronous endpoint
 * would have answered (markets/marketJobResults.ts, brandLifecycle/activationView.ts,
 * subWorkspaces/hopResult.ts); the others store their own small objects.
 */

const provisioned = z
  .object({
    status: z.literal(200),
    body: z.object({ brandId: uuid, provisioning: z.literal("ready") }),
  })
  .meta({
    id: "ProvisionedResult",
    description: "The brand's workspace is ready and nothing was chained (e.g. activate without markets).",
  });

const brandCreatedResult = z
  .object({ status: z.literal(201), body: brandCreated })
  .meta({ id: "BrandCreatedResult", description: "Create brand's 201: the Brand." });

const marketCreatedResult = z
  .object({ status: z.literal(201), body: createMarketResponse })
  .meta({ id: "MarketCreatedResult", description: "Create market's 201: `{market}`." });

const activatedResult = z
  .object({ status: z.literal(200), body: activationSchema })
  .meta({ id: "ActivatedResult", description: "Activate's 200: the BrandActivation." });

const supersededResult = z
  .object({
    status: z.literal(207),
    body: z.object({ brandId: uuid, status: z.literal("superseded") }),
  })
  .meta({
    id: "SupersededResult",
    description:
      "The job no longer applied when it ran (the brand was deactivated, deleted or provisioned by a newer attempt): nothing was done.",
  });

const handedOff = z.union([z.object({ requeuedJobId: uuid }), z.object({ chainedJobId: uuid })]).meta({
  id: "HandedOffResult",
  description:
    "Rare: the poll could not follow this hop's hand-off (the next record is gone); poll again or read the job's timeline.",
});

export const provisionWorkspaceResult = z
  .union([activatedResult, provisioned, brandCreatedResult, marketCreatedResult, supersededResult, handedOff])
  .meta({
    id: "ProvisionWorkspaceResult",
    description:
      "What the chain's last hop stored: the answer of the endpoint that started it (create brand, create market, activate), or superseded.",
  });

export const createMarketResult = z
  .union([brandCreatedResult, marketCreatedResult, supersededResult])
  .meta({ id: "CreateSemrushMarketResult" });

export const activationResult = z
  .union([activatedResult, supersededResult])
  .meta({ id: "ActivationJobResult" });

export const deleteBrandResult = z.object({ brandId: uuid, status: z.literal("deleted") }).meta({
  id: "DeleteBrandResult",
  description:
    "The brand is deleted (its markets deactivated first). The brand's routes answer 404 once it is, so a client follows this job through the org's timeline (the 202's Location), which shows its status.",
});

export const propagateBrandIdentityResult = z
  .object({
    brandId: uuid,
    status: z.enum(["done", "superseded", "brandDeleted"]).meta({
      description:
        "`done`: every ready market carries this identity; `superseded`: a newer PATCH's job (`supersededBy`) took over; `brandDeleted`: nothing to do",
    }),
    identityVersion: z
      .number()
      .int()
      .optional()
      .meta({ description: "The identity version this job synced" }),
    supersededBy: uuid.optional().meta({ description: "The newer propagation job (when superseded)" }),
    marketsSynced: z.number().int().optional().meta({ description: "Markets this job brought up to date" }),
  })
  .meta({ id: "PropagateBrandIdentityResult" });

export { generationJobResultSchema };
