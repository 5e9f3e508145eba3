/**
 * The typed failure of a gateway call (spec/gateway.md §5). It carries what a service needs to
 * decide (`kind`) and what an operator needs to trace (`status`, `method`, templated `route`);
 * the upstream body rides along for logs only and never appears in `message`.
 */
export type GatewayErrorKind =
  /** 401: the bearer is missing, invalid or revoked. */
  | "unauthorized"
  /** 403: the workspace is unknown, deleted or outside the token's tree. */
  | "forbidden"
  /** 404: the project, prompt or model is gone (success for deletes). */
  | "gone"
  /** 405 with a non-JSON string body: the metered-quota rejection. */
  | "meteredQuota"
  /** 405 with a JSON (or empty) body: a genuine wrong-method error, i.e. a bug on our side. */
  | "methodNotAllowed"
  /** 409. */
  | "conflict"
  /** 422 "insufficient available units…": the parent's pool cannot cover a transfer (terminal). */
  | "poolExhausted"
  /** 422 "workspace not ready": the sub-workspace is still settling (transient). */
  | "workspaceNotReady"
  /** 429 after the retries ran out, or no budget slot before the deadline (status 0: never sent). */
  | "rateLimited"
  /** 5xx, timeout (status 504) or network failure (status 0) after the retries ran out. */
  | "unavailable"
  /** Any other 4xx (400 bad language, 422 of another kind…). */
  | "badRequest"
  /** A 2xx/3xx whose body does not match the contract: upstream drift, not transient. */
  | "unexpectedResponse";

export const GATEWAY_ERROR_KINDS: readonly GatewayErrorKind[] = [
  "unauthorized",
  "forbidden",
  "gone",
  "meteredQuota",
  "methodNotAllowed",
  "conflict",
  "poolExhausted",
  "workspaceNotReady",
  "rateLimited",
  "unavailable",
  "badRequest",
  "unexpectedResponse",
];

/** Kinds worth retrying later (by a job, a settle loop or the caller); the rest will not heal. */
export const TRANSIENT_GATEWAY_ERROR_KINDS: ReadonlySet<GatewayErrorKind> = new Set([
  "rateLimited",
  "unavailable",
  "workspaceNotReady",
]);

export interface GatewayErrorInit {
  kind: GatewayErrorKind;
  /**
   * The upstream status; 504 for our own timeout, 0 when no answer arrived (a network failure, or
   * a call never sent because the account's budget had no slot before the deadline).
   */
  status: number;
  method: string;
  /** The templated route, e.g. `/v1/workspaces/{ws}/resources`, never a concrete id. */
  route: string;
  gateway: "um" | "pe";
  /** The upstream body, already truncated; logs only. */
  body?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly status: number;
  readonly method: string;
  readonly route: string;
  readonly gateway: "um" | "pe";
  /** Truncated upstream body for log lines; never serialise it to a caller. */
  readonly body: string | undefined;

  constructor(init: GatewayErrorInit) {
    // The message names only the classification and the templated route: safe to log anywhere.
    super(`Gateway ${init.gateway} ${init.method} ${init.route} failed: ${init.kind} (${init.status})`, {
      cause: init.cause,
    });
    this.name = "GatewayError";
    this.kind = init.kind;
    this.status = init.status;
    this.method = init.method;
    this.route = init.route;
    this.gateway = init.gateway;
    this.body = init.body;
  }

  get transient(): boolean {
    return TRANSIENT_GATEWAY_ERROR_KINDS.has(this.kind);
  }

  /** Log-safe fields (the body is truncated upstream text, acceptable in logs only). */
  toLog(): Record<string, unknown> {
    return {
      gateway: this.gateway,
      kind: this.kind,
      status: this.status,
      method: this.method,
      route: this.route,
      upstreamBody: this.body,
    };
  }
}

export function isGatewayError(error: unknown, kind?: GatewayErrorKind): error is GatewayError {
  return error instanceof GatewayError && (kind === undefined || error.kind === kind);
}
