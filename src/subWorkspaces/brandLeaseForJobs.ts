import { ServiceError } from "../domain/errors.ts";
import { JobError } from "../jobs/jobError.ts";
import { type BrandLease, JOB_BRAND_LEASE_WAIT_MS } from "../locks/brandLease.ts";

/**
 * A job's structural work under the brand's lease (docs/decisions/0015). Off the request path the
 * wait is longer than a request's; a brand still busy after it is not a failure: the job is
 * retried later by the runner (retryable), its record staying IN_PROGRESS.
 */
export async function withJobBrandLease<T>(
  lease: BrandLease,
  brandId: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await lease.withBrand(brandId, work, { waitMs: JOB_BRAND_LEASE_WAIT_MS });
  } catch (error) {
    if (error instanceof ServiceError && error.code === "brandBusy") {
      throw new JobError("brandBusy", { retryable: true, message: error.message, cause: error });
    }
    throw error;
  }
}
