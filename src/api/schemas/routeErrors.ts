import { z } from "zod";

import { ERROR_CODES, ERROR_REGISTRY, type ErrorCode } from "../../domain/errors.ts";

/**
 * The registry codes a route can answer, declared beside its schema and written into the OpenAPI
 * document: one response per status, its `error` listing exactly that route's codes for the status
 * and its description saying when each is sent. The app's error handler checks every error it
 * answers against the route's list and reports a code the route did not declare (a log line at
 * error level and `serenity_http_undeclared_error_codes_total`), so a list that falls behind the
 * code shows up in tests and in production instead of silently lying to integrators.
 */

/**
 * Any route: a request that fails validation, no valid token, past the per-org or per-token API
 * limit (src/api/rateLimits.ts), our database down, a defect.
 */
export const EVERY_ROUTE = [
  "invalidRequest",
  "authenticationRequired",
  "rateLimited",
  "databaseUnavailable",
  "internalServerError",
] as const satisfies readonly ErrorCode[];

/** A route whose request may carry a body (every method but GET): Fastify's body parser. */
export const WITH_BODY = ["payloadTooLarge", "unsupportedMediaType"] as const satisfies readonly ErrorCode[];

/** A create that honours `Idempotency-Key` (ADR 0022). */
export const IDEMPOTENT = [
  "idempotencyKeyInProgress",
  "idempotencyKeyReused",
] as const satisfies readonly ErrorCode[];

/** A route that reads upstream: the gateway's failures as the registry's table maps them. */
export const UPSTREAM_READ = [
  "authenticationRequired",
  "forbidden",
  "notFound",
  "serenityUpstreamError",
  "upstreamBusy",
  "configurationError",
] as const satisfies readonly ErrorCode[];

/** A route that writes upstream: reads' failures, and an upstream conflict or quota refusal. */
export const UPSTREAM_WRITE = [
  ...UPSTREAM_READ,
  "conflict",
  "quotaExceeded",
] as const satisfies readonly ErrorCode[];

/** A route that tops a sub-workspace up from the org's pool just in time (the allocation guard). */
export const ALLOCATION = [
  "orgPoolExhausted",
  "brandAiLimit",
  "workspaceBusy",
  "workspaceMisconfigured",
  "allocationMisconfigured",
  "quotaExceeded",
] as const satisfies readonly ErrorCode[];

/** A route that changes a brand's structure under its lease (ADR 0015). */
export const BRAND_LEASE = ["brandBusy"] as const satisfies readonly ErrorCode[];

/** A route that provisions a brand's sub-workspace (sync, or async with `async: true`). */
export const PROVISIONING = [
  "semrushProvisioningInProgress",
  "ambiguousWorkspace",
  "subworkspaceCreationFailed",
  "subworkspaceCreationTimeout",
  "workspaceMisconfigured",
  "configurationError",
] as const satisfies readonly ErrorCode[];

/** One validation problem (src/api/problem.ts). */
export const fieldProblem = z
  .object({
    in: z.enum(["body", "querystring", "params", "headers"]).describe("The part of the request."),
    pointer: z.string().describe('An RFC 6901 JSON pointer into that part ("" is the part itself).'),
    code: z
      .string()
      .describe("A machine code in camelCase (`invalidType`, `tooBig`, `unrecognizedKeys`, …)."),
    detail: z.string().describe("A sentence for people."),
  })
  .meta({ id: "FieldProblem" });

/**
 * An RFC 9457 problem details document with the registry's extensions (docs/decisions/0037). When
 * answering, `code` and `error` are plain strings (an undeclared code is reported, never turned
 * into a 500); in the document they are an enum of the route's codes for that status.
 */
function problemSchema(codes?: readonly string[]) {
  const codeText = () => (codes ? z.string().meta({ enum: [...codes] }) : z.string());
  return z.object({
    type: z
      .string()
      .describe("`/errors/{code}`: where the code is documented (relative to the API's origin)."),
    title: z.string().describe("The code's fixed sentence."),
    status: z.number().int().min(400).max(599).describe("The HTTP status."),
    detail: z.string().describe("This occurrence's sentence; never an upstream body, id or token."),
    instance: z.string().describe("`urn:serenity:request:{requestId}`."),
    code: codeText().describe("A code of the error registry: what a client switches on."),
    requestId: z.string().describe("Quote it when reporting a problem; also the `x-request-id` header."),
    errors: z
      .array(fieldProblem)
      .optional()
      .describe("`invalidRequest` from the request's schema: every problem of the failing part, at once."),
    error: codeText().meta({ deprecated: true }).describe("Deprecated: the same as `code`."),
    message: z.string().meta({ deprecated: true }).describe("Deprecated: the same as `detail`."),
  });
}

/** The shape every error answer has, as one component of the document (src/api/openApiDocument.ts). */
export const problem = problemSchema(ERROR_CODES).meta({
  id: "Problem",
  description:
    "An RFC 9457 problem details document: every error answer of every route (`application/problem+json`).",
});

/** The response schemas made by `errorResponses`, with the codes each declares. */
const DECLARED = new WeakMap<object, ReadonlySet<string>>();

function describeCodes(codes: readonly ErrorCode[]): string {
  return codes.map((code) => `\`${code}\`: ${ERROR_REGISTRY[code].when}.`).join(" ");
}

/**
 * Error responses of a route, one per status of the codes given (plus EVERY_ROUTE). The `error`
 * field is a plain string when answering (an undeclared code is reported, never turned into a
 * 500) and an enum of the route's codes in the document.
 */
export function errorResponses(
  ...groups: readonly (ErrorCode | readonly ErrorCode[])[]
): Record<number, z.ZodType> {
  const codes = [...new Set<ErrorCode>([...EVERY_ROUTE, ...groups.flat()])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_REGISTRY[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, z.ZodType> = {};
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const sorted = [...statusCodes].sort();
    const schema = problemSchema(sorted).describe(describeCodes(sorted));
    DECLARED.set(schema, new Set(sorted));
    responses[status] = schema;
  }
  return responses;
}

/**
 * Whether a route's response schemas declare `code` for `status`: undefined when the route declares
 * no error responses through `errorResponses` (the not-found handler, hidden routes).
 */
export function isDeclaredError(
  responses: Record<number, unknown> | undefined,
  status: number,
  code: string,
): boolean | undefined {
  const schemas = Object.values(responses ?? {}).filter(
    (schema): schema is object => typeof schema === "object" && schema !== null,
  );
  if (!schemas.some((schema) => DECLARED.has(schema))) return undefined;
  const forStatus = responses?.[status];
  if (typeof forStatus !== "object" || forStatus === null) return false;
  return DECLARED.get(forStatus)?.has(code) ?? false;
}
