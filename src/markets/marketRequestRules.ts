import { ServiceError } from "../domain/errors.ts";

/**
 * A market's project needs the brand's domain (or a primary URL to take it from). Checked before
 * any write, so a request that cannot end with a market does not first create a workspace.
 */
export function requireMarketTarget(brand: { domain?: string | null; primaryUrl?: string | null }): void {
  if (!brand.domain && !brand.primaryUrl) {
    throw new ServiceError("invalidRequest", {
      message: "The brand needs a domain or a primary URL to create a market",
    });
  }
}
