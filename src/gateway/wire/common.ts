import { z } from "zod";

/**
 * Shared wire-schema pieces. Responses are loose objects: unknown extra fields pass through
 * untouched, and only what we use is validated — live adds fields without notice.
 */

/** An opaque id: a non-empty string, as every id of the published documents (catalogues included). */
export const wireId = z.string().min(1);

/** An optional field that live may also send as `null`. */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/**
 * A parent id: a string (the documents' type). "" or absent is no parent: a root tag carries no
 * `parent_id` live, and a root workspace's value is not pinned (a production user's live-calibrated
 * mock answers ""). `null` is accepted for the same unpinned root value and because the published
 * `AIOTag.parent_id` is nullable.
 */
export const wireParentId = z
  .string()
  .nullish()
  .transform((value) => (value === undefined || value === null || value === "" ? null : value));

export function wirePage<T extends z.ZodType>(item: T) {
  return z.looseObject({ items: z.array(item), page: z.number(), total: z.number() });
}
