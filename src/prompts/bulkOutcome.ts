import type { ErrorCode } from "../domain/errors.ts";

/**
 * The outcome of one item of a bulk prompt create. The HTTP layer turns it into the per-item
 * status: `created` → 201, `existed` → 200, `failed` → the registry status of `code`.
 */
export type BulkItemOutcome =
  | { index: number; outcome: "created"; id: string }
  | { index: number; outcome: "existed"; id: string }
  | { index: number; outcome: "failed"; code: ErrorCode; message: string };

export interface BulkPromptItem {
  text: string;
  geoTargetId: number;
  languageCode: string;
  category?: string;
}

export const MAX_BULK_PROMPTS = 500;
