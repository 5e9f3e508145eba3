import type { ErrorCode } from "../domain/errors.ts";
import { PROBLEM_CONTENT_TYPE } from "./problem.ts";
import { RETRY_AFTER_CODES } from "./retryAfter.ts";

/**
 * The last pass over the generated OpenAPI document (docs/decisions/0037), so that what the route
 * schemas cannot say is said once, the same way for every operation:
 *
 * - error responses are `application/problem+json`, an `allOf` of the shared `Problem` schema and
 *   the route's own codes for that status;
 * - response schemas are open to additive fields (no `additionalProperties: false`; request
 *   schemas stay strict), as the rolling-deploy runbook promises releases that add fields;
 * - every response documents the headers it carries (`x-request-id` always; `Retry-After` on a
 *   status whose codes send it; `Idempotent-Replayed` on a create that honours `Idempotency-Key`;
 *   `Location` on a 202).
 */
type Json = Record<string, unknown>;

const REQUEST_ID_HEADER = {
  description: "The request's id (the caller's `x-request-id` when well-formed, else generated): quote it.",
  schema: { type: "string" },
};

const RETRY_AFTER_HEADER = (codes: readonly string[]) => ({
  description: `Seconds to wait before retrying; sent with ${codes.map((code) => `\`${code}\``).join(", ")}.`,
  schema: { type: "integer", minimum: 0 },
});

const LOCATION_HEADER = {
  description: "The route that polls the accepted job (the body's `job.location`).",
  schema: { type: "string" },
};

const IDEMPOTENT_REPLAYED_HEADER = {
  description:
    "`true` when this answer repeats the first answer to the same `Idempotency-Key` (nothing ran again).",
  schema: { type: "string", enum: ["true"] },
};

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deletes `additionalProperties: false` everywhere in `schema` (responses only). */
function openUp(schema: unknown): void {
  if (Array.isArray(schema)) return schema.forEach(openUp);
  if (!isObject(schema)) return;
  if (schema.additionalProperties === false) delete schema.additionalProperties;
  for (const value of Object.values(schema)) openUp(value);
}

function problemSchemaFor(schema: Json): Json {
  const codes = (isObject(schema.properties) &&
    isObject(schema.properties.code) &&
    schema.properties.code.enum) as string[] | undefined;
  return {
    allOf: [
      { $ref: "#/components/schemas/Problem" },
      ...(codes
        ? [
            {
              type: "object",
              properties: { code: { enum: codes }, error: { enum: codes, deprecated: true } },
            },
          ]
        : []),
    ],
  };
}

function codesOf(schema: unknown): string[] {
  if (!isObject(schema) || !isObject(schema.properties) || !isObject(schema.properties.code)) return [];
  const codes = schema.properties.code.enum;
  return Array.isArray(codes) ? (codes as string[]) : [];
}

function finishOperation(operation: Json): void {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  const idempotent = parameters.some(
    (parameter) => parameter.in === "header" && parameter.name === "idempotency-key",
  );
  for (const [status, response] of Object.entries(responses)) {
    if (!isObject(response)) continue;
    const headers: Json = {
      "x-request-id": { $ref: "#/components/headers/RequestId" },
      ...(isObject(response.headers) ? response.headers : {}),
    };
    const content = isObject(response.content) ? response.content : undefined;
    const json = content && isObject(content["application/json"]) ? content["application/json"] : undefined;
    const numeric = Number(status);
    if (json && numeric >= 400 && isObject(json.schema)) {
      const codes = codesOf(json.schema);
      const retrying = codes.filter((code) => RETRY_AFTER_CODES[code as ErrorCode] !== undefined);
      if (retrying.length > 0) headers["Retry-After"] = RETRY_AFTER_HEADER(retrying);
      response.content = { [PROBLEM_CONTENT_TYPE]: { schema: problemSchemaFor(json.schema) } };
    } else if (json) {
      openUp(json.schema);
    }
    if (numeric === 202) headers.Location = { $ref: "#/components/headers/Location" };
    if (numeric >= 200 && numeric < 300 && idempotent)
      headers["Idempotent-Replayed"] = { $ref: "#/components/headers/IdempotentReplayed" };
    response.headers = headers;
  }
}

export function finishDocument<T extends Json>(document: T): T {
  const components = isObject(document.components) ? document.components : {};
  components.headers = {
    RequestId: REQUEST_ID_HEADER,
    IdempotentReplayed: IDEMPOTENT_REPLAYED_HEADER,
    Location: LOCATION_HEADER,
  };
  const schemas = isObject(components.schemas) ? components.schemas : {};
  // The request-side copies (`…Input`) stay strict; every other component is a response shape.
  for (const [name, schema] of Object.entries(schemas)) if (!name.endsWith("Input")) openUp(schema);
  const paths = isObject(document.paths) ? document.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const operation of Object.values(item)) if (isObject(operation)) finishOperation(operation);
  }
  return document;
}
