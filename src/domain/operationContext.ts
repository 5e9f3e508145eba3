/** Who an operation acts for: whose bearer goes upstream, and the request it serves (for logs). */
export interface OperationContext {
  bearer: string;
  requestId: string | undefined;
  /**
   * Set by a caller that may run the same market create again (a job, delivered at least once):
   * the owner of the slice reservation, stable across redeliveries (see createMarketForBrand).
   */
  reservationKey?: string;
}
