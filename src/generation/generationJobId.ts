import { createHash } from "node:crypto";

/**
 * The generation job's id: a deterministic UUID from `(brandId, geoTargetId, languageCode)`
 * (spec/generation.md §2 step 3). It is the producer's idempotency key, so the same market always
 * maps to the same job. SHA-256 of a namespaced key, its first 16 bytes shaped as a version-4 UUID
 * (version nibble 4, RFC 4122 variant) so it fits every `uuid` column and validator. The language
 * code is lower-cased: `FR` and `fr` are one market.
 */
export function generationJobId(brandId: string, geoTargetId: number, languageCode: string): string {
  const key = `serenity:generate-market-prompts:${brandId}|${geoTargetId}|${languageCode.trim().toLowerCase()}`;
  const bytes = createHash("sha256").update(key, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
