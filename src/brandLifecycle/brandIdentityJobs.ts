import { deterministicUuid } from "../domain/deterministicUuid.ts";

/** The job types of a brand's identity (docs/decisions/0041). */
export const DELETE_BRAND_JOB = "delete-brand";
export const DELETE_BRAND_PUBLIC = "deleteBrand";
export const PROPAGATE_IDENTITY_JOB = "propagate-brand-identity";
export const PROPAGATE_IDENTITY_PUBLIC = "propagateBrandIdentity";

/** One delete job per brand: a second DELETE (or a retry without a key) answers the same job. */
export function deleteBrandJobId(brandId: string): string {
  return deterministicUuid(`serenity:delete-brand:${brandId}`);
}

/** One propagation job per identity version: a replayed PATCH names the job its version started. */
export function propagationJobId(brandId: string, identityVersion: number): string {
  return deterministicUuid(`serenity:propagate-brand-identity:${brandId}|${identityVersion}`);
}
