/** The identity of one idempotency key: whose, where, which (the table's primary key). */
export interface IdempotencyKeyScope {
  /** The route's org, or "" for a route without one. */
  orgId: string;
  principal: string;
  /** Method and route template. */
  route: string;
  key: string;
}
