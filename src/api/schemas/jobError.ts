import { z } from "zod";

/** A FAILED job's `error` (spec/api.md §3), shared by every job shape. */
export const jobErrorSchema = z
  .object({
    code: z.string(),
    message: z.string().meta({ description: "A fixed, caller-safe sentence for the code." }),
    retryable: z.boolean().meta({ description: "A hint: retrying the operation may succeed." }),
    needsReauth: z.boolean().meta({ description: "Sign in again and POST …/reauth to resume the job." }),
  })
  .meta({ id: "JobError" });
