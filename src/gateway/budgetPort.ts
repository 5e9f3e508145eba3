import type { EndpointGroup, UpstreamScope } from "../domain/upstreamBudget.ts";

/**
 * What the transport needs from an upstream budget (docs/decisions/0019). The implementation lives
 * above the gateway (src/budget/, on PostgreSQL); the transport only asks for a permit before each
 * attempt and hands it back after. No budget (limits 0) = no call to any of this.
 */
export interface UpstreamBudget {
  /**
   * Waits for a slot of (the bearer's account, group) at the scope's priority, no later than its
   * deadline. Rejects with `BudgetExhausted` when the deadline comes first, or with the signal's
   * reason when the caller gives up.
   */
  acquire(
    bearer: string,
    group: EndpointGroup,
    scope: UpstreamScope,
    signal?: AbortSignal,
  ): Promise<BudgetPermit>;
}

export interface BudgetPermit {
  /** Ends the call: frees the slot (by its holder token: a slot taken over after expiry stays). */
  release(): Promise<void>;
  /** The upstream answered 429 all the same: lowers the (account, group)'s adaptive limit. */
  reportThrottled(): Promise<void>;
}

/** The deadline passed before a slot was free: the caller answers `upstreamBusy`. */
export class BudgetExhausted extends Error {
  constructor(readonly group: EndpointGroup) {
    super(`No upstream budget for the ${group} group before the caller's deadline.`);
    this.name = "BudgetExhausted";
  }
}
