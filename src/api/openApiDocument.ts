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

const STATUS_PHRASES: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted: a job does the rest; poll `Location`",
  "204": "No content: done",
  "207": "Multi-status: one result per item",
};

const VERBS: Record<string, string> = {
  get: "get",
  post: "create",
  put: "replace",
  patch: "update",
  delete: "delete",
};
const ACTIONS = new Set(["activate", "deactivate", "reauth", "bulk-delete", "prompt-preview"]);

function pascal(segment: string): string {
  return segment
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join("");
}

/**
 * An operationId from the method and path, the same rule for every route: `list…` for a GET of a
 * collection, `get…` for one item, `create…`/`replace…`/`update…`/`delete…`, and the action's name
 * for an action route (`activateBrand`, `reauthJob`). A test holds them unique.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path.split("/").filter((segment) => segment && segment !== "v2" && segment !== "serenity");
  const trailingParam = segments.at(-1)?.startsWith("{") ?? false;
  const nouns: string[] = [];
  for (const segment of [...segments].reverse()) {
    if (segment.startsWith("{")) {
      if (nouns.length > 0) break;
      continue;
    }
    nouns.unshift(segment);
  }
  let run = nouns.slice(-2);
  const action = run.at(-1)!;
  if (method === "post" && ACTIONS.has(action)) {
    const owner =
      segments.filter((segment) => !segment.startsWith("{") && !ACTIONS.has(segment)).at(-1) ?? "";
    return `${action.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())}${pascal(singular(owner))}`;
  }
  if (run.length === 2 && ["orgs", "brands", "markets"].includes(run[0]!)) run = run.slice(1);
  const one = trailingParam || method === "post";
  const name = pascal((one ? [...run.slice(0, -1), singular(run.at(-1)!)] : run).join("-"));
  if (method !== "get") return `${VERBS[method] ?? method}${name}`;
  return `${trailingParam || !action.endsWith("s") ? "get" : "list"}${name}`;
}

function singular(noun: string): string {
  return noun.endsWith("ies") ? `${noun.slice(0, -3)}y` : noun.endsWith("s") ? noun.slice(0, -1) : noun;
}

function finishOperation(operation: Json): void {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  const authenticated = !(Array.isArray(operation.security) && operation.security.length === 0);
  const idempotent = parameters.some(
    (parameter) => parameter.in === "header" && parameter.name === "idempotency-key",
  );
  for (const [status, response] of Object.entries(responses)) {
    if (!isObject(response)) continue;
    if (response.description === "Default Response") {
      const content = isObject(response.content) ? response.content : {};
      const media = Object.values(content)[0];
      const ref = isObject(media) && isObject(media.schema) ? media.schema.$ref : undefined;
      const named = typeof ref === "string" ? ` — ${ref.split("/").at(-1)}` : "";
      const summary = typeof operation.summary === "string" ? `${operation.summary}. ` : "";
      response.description = `${summary}${STATUS_PHRASES[status] ?? status}${named}.`;
    }
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
    if (authenticated) {
      headers.RateLimit = { $ref: "#/components/headers/RateLimit" };
      headers["RateLimit-Policy"] = { $ref: "#/components/headers/RateLimitPolicy" };
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
    RateLimit: {
      description:
        'The IETF RateLimit field (draft-ietf-httpapi-ratelimit-headers) for whichever API limit (per token or per org) is nearest exhaustion: `"token";r=<remaining>;t=<seconds to reset>`. Sent while the limits are on (the default).',
      schema: { type: "string" },
    },
    RateLimitPolicy: {
      description:
        'Every limit that counted the request: `"token";q=<quota>;w=<window seconds>, "org";q=…;w=…`.',
      schema: { type: "string" },
    },
  };
  const schemas = isObject(components.schemas) ? components.schemas : {};
  // The request-side copies (`…Input`) stay strict; every other component is a response shape.
  for (const [name, schema] of Object.entries(schemas)) if (!name.endsWith("Input")) openUp(schema);
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation)) continue;
      operation.operationId ??= operationIdOf(method, path);
      finishOperation(operation);
    }
  }
  return document;
}
