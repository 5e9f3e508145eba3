import { ANSWER_FACTS, FIELD_FACTS, isJson, type RecordedAnswer, SHAPE_FACTS } from "./liveFacts.ts";
import { PublishedApi, type PublishedOperation, type SchemaNode } from "./publishedApi.ts";

/**
 * Validates recorded HTTP exchanges against Semrush's published documents (spec/gateway.md §8):
 * the operation (method + path template below the gateway prefix), the bearer, the path and query
 * parameters, the request body, the declared status, the answer's content type and body — and, in
 * the strict mode, every field either side sends is declared by the document or named by a live
 * fact of liveFacts.ts. The published schemas are open (no `additionalProperties: false`), so
 * without the strict mode a field live never sends would pass unseen.
 */

export interface Exchange {
  method: string;
  /** The full request path, gateway prefix included, no query. */
  path: string;
  query: [string, string][];
  requestHeaders: Record<string, string | undefined>;
  requestBody: string;
  status: number;
  responseHeaders: Record<string, string | undefined>;
  responseBody: string;
}

export interface Violation {
  /** `GET /v1/workspaces/{id} (workspace-details)`, or the raw request when no operation matches. */
  operation: string;
  side: "request" | "response";
  field: string;
  message: string;
}

export interface ExchangeVerdict {
  operation: PublishedOperation | undefined;
  violations: Violation[];
  /** The live facts that accepted something the documents do not declare. */
  facts: string[];
}

export function describeViolation(violation: Violation): string {
  return `${violation.operation}: ${violation.side} ${violation.field} ${violation.message}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S.*)$/i.exec(header ?? "");
  return match?.[1]?.trim() || undefined;
}

/** Property schemas of an object schema (allOf / anyOf / oneOf branches merged). */
function propertiesOf(
  api: PublishedApi,
  gateway: "pe" | "um",
  schema: SchemaNode,
): {
  properties: Record<string, SchemaNode>;
  additional: SchemaNode | boolean | undefined;
  declaresShape: boolean;
} {
  const node = api.resolve(gateway, schema);
  const properties: Record<string, SchemaNode> = { ...(node.properties ?? {}) };
  let additional: SchemaNode | boolean | undefined = node.additionalProperties as
    SchemaNode | boolean | undefined;
  let declaresShape = node.properties !== undefined || node.additionalProperties !== undefined;
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    for (const branch of (node[key] as SchemaNode[] | undefined) ?? []) {
      const merged = propertiesOf(api, gateway, branch);
      Object.assign(properties, merged.properties);
      additional ??= merged.additional;
      declaresShape ||= merged.declaresShape;
    }
  }
  return { properties, additional, declaresShape };
}

/**
 * Fields of `value` its schema does not declare, as paths (`settings.ai.country_code`, `items[].x`).
 * An object schema that declares no properties at all is a free-form map and declares everything.
 */
export function undeclaredFields(
  api: PublishedApi,
  gateway: "pe" | "um",
  schema: SchemaNode | undefined,
  value: unknown,
  at = "",
): string[] {
  if (!schema || value === null || typeof value !== "object") return [];
  const node = api.resolve(gateway, schema);
  if (Array.isArray(value)) {
    const items = node.items as SchemaNode | undefined;
    return [...new Set(value.flatMap((item) => undeclaredFields(api, gateway, items, item, `${at}[]`)))];
  }
  const { properties, additional, declaresShape } = propertiesOf(api, gateway, node);
  if (!declaresShape) return [];
  const found: string[] = [];
  for (const [key, field] of Object.entries(value)) {
    const path = at ? `${at}.${key}` : key;
    const declared = properties[key] ?? (typeof additional === "object" ? additional : undefined);
    if (declared) found.push(...undeclaredFields(api, gateway, declared, field, path));
    else if (additional !== true) found.push(path);
  }
  return found;
}

/** A query or path value read as the parameter's declared type. */
function parameterValue(
  api: PublishedApi,
  gateway: "pe" | "um",
  parameter: SchemaNode,
  raw: string,
): unknown {
  const type = api.resolve(gateway, (parameter.schema as SchemaNode | undefined) ?? {}).type;
  if (type === "integer" || type === "number") return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (type === "boolean") return raw === "true" ? true : raw === "false" ? false : raw;
  return raw;
}

function jsonContent(content: SchemaNode | undefined): SchemaNode | undefined {
  if (!content) return undefined;
  const key = Object.keys(content).find((type) => /^application\/json\b/.test(type));
  return key === undefined
    ? undefined
    : (((content[key] as SchemaNode).schema as SchemaNode | undefined) ?? {});
}

function checkRequest(api: PublishedApi, operation: PublishedOperation, exchange: Exchange, path: string) {
  const { gateway } = operation;
  const found: { field: string; message: string }[] = [];
  const security = (operation.operation.security ?? api.documents[gateway].security) as unknown[] | undefined;
  if ((security?.length ?? 0) > 0 && !bearerOf(exchange.requestHeaders.authorization)) {
    found.push({ field: "Authorization", message: "carries no bearer (every operation needs one)" });
  }

  // Path parameters, in template order.
  const names = [...operation.template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const values = operation.pattern.exec(path) ? path.split("/") : [];
  operation.template.split("/").forEach((segment, index) => {
    const name = /^\{([^}]+)\}$/.exec(segment)?.[1];
    if (!name || !names.includes(name)) return;
    const parameter = operation.parameters.find((p) => p.in === "path" && p.name === name);
    const raw = decodeURIComponent(values[index] ?? "");
    if (parameter?.schema) {
      for (const error of api.validate(
        gateway,
        parameter.schema as SchemaNode,
        parameterValue(api, gateway, parameter, raw),
      ))
        found.push({ field: `path {${name}}`, message: `${error.message} (sent "${raw}")` });
    }
  });

  // Query parameters: the required ones present, every one declared and of its type.
  const sent = new Map<string, string[]>();
  for (const [key, value] of exchange.query) sent.set(key, [...(sent.get(key) ?? []), value]);
  for (const parameter of operation.parameters.filter((p) => p.in === "query")) {
    const raw = sent.get(parameter.name as string);
    if (!raw) {
      if (parameter.required)
        found.push({ field: `query ${parameter.name}`, message: "is required but not sent" });
      continue;
    }
    for (const value of raw) {
      for (const error of api.validate(
        gateway,
        (parameter.schema as SchemaNode) ?? {},
        parameterValue(api, gateway, parameter, value),
      ))
        found.push({ field: `query ${parameter.name}`, message: `${error.message} (sent "${value}")` });
    }
  }
  for (const key of sent.keys()) {
    if (!operation.parameters.some((p) => p.in === "query" && p.name === key))
      found.push({ field: `query ${key}`, message: "is not a parameter of the operation" });
  }

  // The body.
  const requestBody = operation.operation.requestBody
    ? api.resolve(gateway, operation.operation.requestBody as SchemaNode)
    : undefined;
  const schema = jsonContent(requestBody?.content as SchemaNode | undefined);
  if (exchange.requestBody === "") {
    if (requestBody?.required) found.push({ field: "body", message: "is required but none was sent" });
  } else if (!requestBody) {
    found.push({ field: "body", message: "is sent to an operation that takes none" });
  } else if (!isJson(exchange.requestHeaders["content-type"] ?? "")) {
    found.push({
      field: "Content-Type",
      message: `is "${exchange.requestHeaders["content-type"] ?? ""}", not application/json`,
    });
  } else {
    const body = parseJson(exchange.requestBody);
    if (!body.ok) found.push({ field: "body", message: "is not JSON" });
    else if (schema) {
      for (const error of api.validate(gateway, schema, body.value))
        found.push({ field: error.field, message: error.message });
      for (const field of undeclaredFields(api, gateway, schema, body.value))
        found.push({ field, message: "is not declared by the document" });
    }
  }
  return found;
}

function checkResponse(
  api: PublishedApi,
  operation: PublishedOperation,
  exchange: Exchange,
  facts: string[],
) {
  const { gateway } = operation;
  const answer: RecordedAnswer = {
    status: exchange.status,
    contentType: exchange.responseHeaders["content-type"] ?? "",
    body: exchange.responseBody,
    headers: exchange.responseHeaders,
  };
  const fact = ANSWER_FACTS.find(
    (candidate) =>
      (candidate.gateway === "both" || candidate.gateway === gateway) &&
      (candidate.operations === undefined || candidate.operations.includes(operation.label)) &&
      candidate.matches(answer),
  );
  if (fact) {
    facts.push(fact.name);
    return [];
  }
  const responses = operation.operation.responses as Record<string, SchemaNode>;
  const declared = responses[String(exchange.status)] ?? responses.default;
  if (!declared) {
    const body =
      exchange.responseBody.length > 120 ? `${exchange.responseBody.slice(0, 120)}…` : exchange.responseBody;
    return [
      {
        field: "status",
        message: `${exchange.status} is not declared, and no live fact accepts it (${answer.contentType}: ${body})`,
      },
    ];
  }
  const response = api.resolve(gateway, declared);
  const schema = jsonContent(response.content as SchemaNode | undefined);
  const found: { field: string; message: string }[] = [];
  if (!response.content) {
    if (exchange.responseBody !== "")
      found.push({ field: "body", message: `is not empty (status ${exchange.status} declares no content)` });
    return found;
  }
  if (schema === undefined) return found;
  if (!isJson(answer.contentType)) {
    found.push({ field: "Content-Type", message: `is "${answer.contentType}", not application/json` });
    return found;
  }
  const body = parseJson(exchange.responseBody);
  if (!body.ok) return [{ field: "body", message: "is not JSON" }];
  for (const error of api.validate(gateway, schema, body.value))
    found.push({ field: error.field, message: error.message });
  for (const field of undeclaredFields(api, gateway, schema, body.value)) {
    const allowed = FIELD_FACTS.find(
      (entry) => entry.field === field && entry.operations.includes(operation.label),
    );
    if (allowed) facts.push(allowed.name);
    else
      found.push({
        field,
        message: "is not declared by the document (strict mode) and no live fact names it",
      });
  }
  if (exchange.status < 300) {
    for (const shape of SHAPE_FACTS.filter((entry) => entry.operations.includes(operation.label))) {
      for (const broken of shape.check(body.value))
        found.push({ field: broken.field, message: `${broken.message} (live fact ${shape.name})` });
      facts.push(shape.name);
    }
  }
  return found;
}

/** One exchange's verdict: the operation it maps to, every violation, the live facts it relied on. */
export function checkExchange(api: PublishedApi, exchange: Exchange): ExchangeVerdict {
  const split = PublishedApi.split(exchange.path);
  const raw = `${exchange.method} ${exchange.path}`;
  if (!split) {
    return {
      operation: undefined,
      violations: [
        { operation: raw, side: "request", field: "path", message: "is below neither gateway prefix" },
      ],
      facts: [],
    };
  }
  const operation = api.find(split.gateway, exchange.method, split.below);
  if (!operation) {
    return {
      operation: undefined,
      violations: [
        {
          operation: raw,
          side: "request",
          field: "path",
          message: `matches no ${split.gateway} operation of the documents`,
        },
      ],
      facts: [],
    };
  }
  const name = `${operation.label} (${operation.operationId})`;
  const facts: string[] = [];
  const violations: Violation[] = [
    ...checkRequest(api, operation, exchange, split.below).map((v) => ({
      operation: name,
      side: "request" as const,
      ...v,
    })),
    ...checkResponse(api, operation, exchange, facts).map((v) => ({
      operation: name,
      side: "response" as const,
      ...v,
    })),
  ];
  return { operation, violations, facts };
}

export interface ConformanceReport {
  exchanges: number;
  operations: number;
  failing: number;
  violations: Violation[];
  /** Distinct violations (operation, side, field, message), first seen first. */
  distinct: string[];
  factsUsed: Set<string>;
  /** Per operation label: how many exchanges, and how many answered 2xx. */
  byOperation: Map<string, { exchanges: number; succeeded: number }>;
}

export function checkExchanges(api: PublishedApi, exchanges: readonly Exchange[]): ConformanceReport {
  const violations: Violation[] = [];
  const factsUsed = new Set<string>();
  const byOperation = new Map<string, { exchanges: number; succeeded: number }>();
  let failing = 0;
  for (const exchange of exchanges) {
    const verdict = checkExchange(api, exchange);
    if (verdict.violations.length > 0) failing += 1;
    violations.push(...verdict.violations);
    for (const fact of verdict.facts) factsUsed.add(fact);
    const label = verdict.operation
      ? `${verdict.operation.gateway} ${verdict.operation.label}`
      : `? ${exchange.method} ${exchange.path}`;
    const seen = byOperation.get(label) ?? { exchanges: 0, succeeded: 0 };
    seen.exchanges += 1;
    if (exchange.status >= 200 && exchange.status < 300) seen.succeeded += 1;
    byOperation.set(label, seen);
  }
  return {
    exchanges: exchanges.length,
    operations: byOperation.size,
    failing,
    violations,
    distinct: [...new Set(violations.map(describeViolation))],
    factsUsed,
    byOperation,
  };
}
