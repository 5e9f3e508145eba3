/**
 * The error-code registry of spec/api.md §2: every code a caller can receive, with its HTTP status
 * and the fixed, generic sentence that is its default message. Services throw `ServiceError` with a
 * code; only the HTTP layer turns a code into a status. Details that must not reach a caller
 * (upstream bodies, workspace ids, pool numbers) travel in `details` and go to logs.
 */

export const ERROR_REGISTRY = {
  invalidRequest: {
    status: 400,
    message: "The request is invalid.",
    when: "schema or semantic validation failed (the message may name the field)",
  },
  authenticationRequired: {
    status: 401,
    message: "Authentication is required.",
    when: 'no or invalid token; also an upstream 401 ("Upstream authorization failed")',
  },
  forbidden: {
    status: 403,
    message: "You are not allowed to do this.",
    when: "the caller lacks the role; also an upstream 403",
  },
  notFound: { status: 404, message: "The resource was not found.", when: "unknown or inaccessible resource" },
  payloadTooLarge: {
    status: 413,
    message: "The request body is too large.",
    when: "the body exceeds the size limit",
  },
  unsupportedMediaType: {
    status: 415,
    message: "The request body must be JSON.",
    when: "a body with a content type other than JSON",
  },
  conflict: {
    status: 409,
    message: "The request conflicts with the current state upstream.",
    when: "generic upstream conflict",
  },
  brandExists: {
    status: 409,
    message: "The organization already has a brand with this name.",
    when: "a brand is created with a name the org already has (compared case-insensitively)",
  },
  idempotencyKeyInProgress: {
    status: 409,
    message: "A request with this Idempotency-Key is still in progress; retry shortly.",
    when: "a repeat of a request with the same Idempotency-Key arrived while the first was still running, and it did not finish within the edge budget (Retry-After)",
  },
  promptExists: {
    status: 409,
    message: "Another prompt of this market already has this text.",
    when: "a prompt edit to a text another prompt of the market already has",
  },
  categoryExists: {
    status: 409,
    message: "A category with this name already exists under the same parent.",
    when: "a category created, renamed or moved next to a sibling of the same name",
  },
  categoryInUse: {
    status: 409,
    message: "The category still has prompts or subcategories.",
    when: "a category delete without reassignTo while prompts use it, or while it has subcategories",
  },
  marketExists: {
    status: 409,
    message: "The market already exists for this brand.",
    when: "the market slice already exists for the brand",
  },
  orgPoolExhausted: {
    status: 409,
    message: "The organization's AI resource pool cannot cover this request.",
    when: "the org's pool cannot cover a top-up",
  },
  brandAiLimit: {
    status: 409,
    message: "This brand has reached its AI resource limit.",
    when: "a top-up would pass the brand ceiling",
  },
  quotaExceeded: {
    status: 409,
    message: "The AI resource quota is exceeded.",
    when: "the upstream still rejects a metered write as over quota",
  },
  semrushProvisioningInProgress: {
    status: 409,
    message: "Provisioning is in progress for this brand; retry later.",
    when: "a live provisioning attempt exists for the brand",
  },
  semrushProvisioningIncomplete: {
    status: 409,
    message: "The brand's Semrush workspace is not provisioned.",
    when: "the brand's sub-workspace is not provisioned (pending or failed)",
  },
  workspaceMisconfigured: {
    status: 409,
    message: "The brand's workspace is misconfigured.",
    when: "a brand's sub-workspace equals the org's parent",
  },
  ambiguousWorkspace: {
    status: 409,
    message: "Several existing workspaces match this brand; resolve them before retrying.",
    when: "adoption found several matching workspaces",
  },
  parentWorkspaceInUse: {
    status: 409,
    message: "This Semrush workspace is already another organization's pool.",
    when: "an org is created or updated with a parent workspace another org already has",
  },
  invalidState: {
    status: 409,
    message: "The operation does not apply in the current state.",
    when: "the operation does not apply to the job or brand in its current state",
  },
  idempotencyKeyReused: {
    status: 422,
    message: "This Idempotency-Key was already used with a different request.",
    when: "a request reuses an Idempotency-Key (within 24 h) with another body or path",
  },
  rateLimited: {
    status: 429,
    message: "Too many requests; retry later.",
    when: "our own rate limit, per org or per token (Retry-After: the seconds until the window ends)",
  },
  allocationMisconfigured: {
    status: 500,
    message: "AI resource allocation is misconfigured for this brand.",
    when: "dynamic allocation is on but a workspace id is missing",
  },
  internalServerError: {
    status: 500,
    message: "An internal error occurred.",
    when: "anything unclassified (logged with stack, never echoed)",
  },
  serenityUpstreamError: {
    status: 502,
    message: "The upstream service failed.",
    when: "any other upstream failure, including timeouts",
  },
  generatorUnavailable: {
    status: 502,
    message: "The prompt generator failed or could not be reached; retry later.",
    when: "a prompt preview's generator answered an error, nothing usable, or could not be reached",
  },
  subworkspaceCreationFailed: {
    status: 502,
    message: "The upstream failed to create the workspace.",
    when: "the upstream reports a terminal creation failure",
  },
  brandBusy: {
    status: 503,
    message: "Another change to this brand is in progress; retry shortly.",
    when: "another structural operation on the brand holds its lease past the wait (Retry-After)",
  },
  workspaceBusy: {
    status: 503,
    message: "The workspace is busy; retry shortly.",
    when: "a sub-workspace is settling or its allocation lock is busy (Retry-After)",
  },
  upstreamBusy: {
    status: 503,
    message: "The upstream's request limit for this account is reached; retry shortly.",
    when: "no upstream budget (Semrush's per-account request limits) before the request's deadline, or 429s until it (Retry-After)",
  },
  configurationError: {
    status: 503,
    message: "The service is not configured for this request.",
    when: "required configuration is missing or invalid",
  },
  databaseUnavailable: {
    status: 503,
    message: "The service is temporarily unavailable; retry shortly.",
    when: "Serenity's database cannot be reached (a restart, a failover): /readyz answers 503 meanwhile",
  },
  subworkspaceCreationTimeout: {
    status: 504,
    message: "The workspace did not become ready in time; retry with async: true.",
    when: "a synchronous settle wait ran out",
  },
  generationTimeout: {
    status: 504,
    message: "The prompt generator did not answer in time; retry, or ask for fewer prompts.",
    when: "a prompt preview ran past the generator timeout",
  },
} as const satisfies Record<string, { status: number; message: string; when: string }>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export const ERROR_CODES = Object.keys(ERROR_REGISTRY) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return ERROR_REGISTRY[code].status;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_REGISTRY, value);
}

export interface ServiceErrorOptions {
  /** A caller-safe sentence replacing the registry default (never upstream text). */
  message?: string;
  /** Log-only context: ids, numbers, upstream classification. Never serialised to a caller. */
  details?: Record<string, unknown>;
  cause?: unknown;
  /** Caller-safe problems of the request body a service found (RFC 6901 pointers, machine codes). */
  bodyProblems?: { pointer: string; code: string; detail: string }[];
}

/** A domain failure with a registry code. Thrown by services; mapped to a status at the edge. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly bodyProblems: ServiceErrorOptions["bodyProblems"];

  constructor(code: ErrorCode, options: ServiceErrorOptions = {}) {
    super(options.message ?? ERROR_REGISTRY[code].message, { cause: options.cause });
    this.name = "ServiceError";
    this.code = code;
    this.details = options.details;
    this.bodyProblems = options.bodyProblems;
  }
}
