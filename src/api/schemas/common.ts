import { z } from "zod";

import { ERROR_CODES } from "../../domain/errors.ts";

export const errorEnvelope = z
  .object({
    error: z.enum(ERROR_CODES as [string, ...string[]]),
    message: z.string(),
    requestId: z.string(),
  })
  .meta({ id: "Error", description: "Every error response. `error` is a code of the error registry." });

export const uuid = z.uuid({ message: "must be a UUID" });

export const orgParams = z.object({ orgId: uuid });
export const brandParams = z.object({ orgId: uuid, brandId: uuid });

/** Error responses a route documents; the handler never builds them itself. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorEnvelope> {
  return Object.fromEntries([400, 401, ...statuses].map((status) => [status, errorEnvelope]));
}

export const isoTimestamp = z.string().meta({ format: "date-time" });

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Free text a user names things with: trimmed, bounded, no control characters (PostgreSQL rejects NUL). */
export function plainText(maxLength: number) {
  return z
    .string()
    .trim()
    .min(1, "must not be empty")
    .max(maxLength, `must be at most ${maxLength} characters`)
    .refine((value) => !CONTROL_CHARACTERS.test(value), "must not contain control characters");
}

/** The response schema of a 204. */
export const noContent = z.null().describe("No content");
