import { createHash } from "node:crypto";

/**
 * A UUID that is a function of `key`: SHA-256 of it, the first 16 bytes shaped as a version-4 UUID
 * (version nibble 4, RFC 4122 variant) so it fits every `uuid` column and validator. What makes a
 * job submit idempotent: the same key always names the same job (generationJobId.ts does the same).
 */
export function deterministicUuid(key: string): string {
  const bytes = createHash("sha256").update(key, "utf8").digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
