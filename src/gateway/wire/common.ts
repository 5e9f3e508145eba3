import { z } from "zod";

/**
 * Shared wire-schema pieces. Responses are loose objects: unknown extra fields pass through
 * untouched, and only what we use is validated — live adds fields without notice.
 */

/** An opaque id: live uses strings for some resources and integers for others. */
export const wireId = z.union([z.string().min(1), z.number()]).transform(String);

/** An optional field that live may also send as `null`. */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

export const wireParentId = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((value) => (value === undefined || value === null || value === "" ? null : String(value)));

export function wirePage<T extends z.ZodType>(item: T) {
  return z.looseObject({ items: z.array(item), page: z.number(), total: z.number() });
}
