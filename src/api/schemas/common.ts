import { z } from "zod";

export const uuid = z.uuid({ message: "must be a UUID" });

/** An id we are given: a UUID in any case, used lower-cased (an upper-case id must not miss its row). */
export const uuidParam = uuid.transform((id) => id.toLowerCase());

export const orgParams = z.object({ orgId: uuidParam });
export const brandParams = z.object({ orgId: uuidParam, brandId: uuidParam });

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

/** An http(s) URL a caller gives us (stored, and sent upstream): bounded, no control characters. */
export function httpUrl() {
  return z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
    .max(2048)
    .refine((value) => !CONTROL_CHARACTERS.test(value), "must not contain control characters");
}

/**
 * A geo target id in a body (2000 + ISO numeric country code, e.g. 2840); bounded so a huge number
 * is a 400 rather than an integer overflow in the database.
 */
export const geoTargetIdNumber = z.number().int().positive().max(2_147_483_647);

/**
 * An upstream workspace id an admin configures. Ids are interpolated into upstream URL paths, so
 * only id characters are accepted (no `/`, `..` or spaces).
 */
export const workspaceIdText = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{1,128}$/, "must be a workspace id (letters, digits, '-' and '_')");
