import { z } from "zod";

import { generationJobMetadataSchema } from "../generationJobMetadata.ts";

/**
 * The generation job's metadata with its checkpoints (spec/generation.md §3): `generatedBatch`
 * (saved before any upstream write, so the generator is called at most once per job),
 * `promptsWritten` with the project and the count, and `published`. Checkpoints hold prompt texts
 * and ids only — never a credential.
 */
export const generationJobStateSchema = generationJobMetadataSchema.extend({
  generatedBatch: z
    .object({ prompts: z.array(z.object({ prompt: z.string(), category: z.string() })) })
    .optional(),
  promptsWritten: z.boolean().optional(),
  projectId: z.string().optional(),
  promptCount: z.number().int().nonnegative().optional(),
  published: z.boolean().optional(),
});

export type GenerationJobState = z.infer<typeof generationJobStateSchema>;

/** What a COMPLETED generation job stores and the poll shows (spec/generation.md §3). */
export interface GenerationJobResult extends Record<string, unknown> {
  promptCount: number;
  projectId: string;
  published: true;
  verdict: "ship";
}
