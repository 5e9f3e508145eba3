import type { EndpointGroup } from "../../domain/endpointGroup.ts";

/** One recorded gateway call: the full path (prefix included, query excluded) and the final status. */
export interface Call {
  method: string;
  path: string;
  status: number;
  /** When the answer went out (or the connection was dropped). */
  at: string;
  /** When the request arrived: what "no write after t" assertions compare with. */
  receivedAt?: string;
  /** The Host it was addressed to: tells apart callers that reach the simulator by different addresses. */
  host?: string;
  /** The endpoint group its request limits count against; null outside both gateways' prefixes. */
  group: EndpointGroup | null;
  /** Answered 429 by the request limits (a fault rule's 429 is not `throttled`). */
  throttled: boolean;
  /**
   * The account it counted against (`bearerHash` of its bearer, as `/__sim/rate` names it); absent
   * for a call without a bearer. Lets a benchmark attribute calls to accounts, never the bearer.
   */
  account?: string;
}

/**
 * The ordered log of every non-control request, the instrument for "zero extra calls" assertions and
 * for counting round trips. A dropped connection is logged with status 0.
 */
export class CallLog {
  #calls: Call[] = [];

  record(call: Call): void {
    this.#calls.push(call);
  }

  list(): Call[] {
    return this.#calls.map((call) => ({ ...call }));
  }

  clear(): void {
    this.#calls = [];
  }

  get size(): number {
    return this.#calls.length;
  }
}
