import { readFileSync } from "node:fs";

import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

import { GATEWAY_PREFIXES } from "../../src/gateway/routeTemplate.ts";
import type { GatewayName } from "../../src/gateway/types.ts";

/**
 * Semrush's published API as the tests read it: the two OpenAPI 3.0 documents of
 * test/fixtures/semrush/ (copies of the specification's fixtures, never edited), an index of their
 * operations by method and path template, and ajv validators for their schemas.
 */

// ajv-formats is CommonJS (`exports.default = formatsPlugin`): under NodeNext its default import is
// the module object, the plugin being its `default`.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = (addFormatsModule as unknown as { default: FormatsPlugin }).default;

const FIXTURES = new URL("../fixtures/semrush/", import.meta.url);
const DOCUMENTS: Record<GatewayName, string> = {
  pe: "project-engine.openapi.json",
  um: "user-manager.openapi.json",
};

/** Any OpenAPI / JSON Schema node, read loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the documents are data, walked by hand
export type SchemaNode = Record<string, any>;

export interface PublishedOperation {
  gateway: GatewayName;
  method: string;
  /** The path template below the gateway prefix, as the document writes it. */
  template: string;
  operationId: string;
  operation: SchemaNode;
  /** Parameters of the path item and the operation, the operation's winning on a clash. */
  parameters: SchemaNode[];
  /** `GET /v1/workspaces/{id}` — how a failure names the operation. */
  label: string;
  pattern: RegExp;
  /** Literal segments: the most specific template wins when several match. */
  literals: number;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

function templatePattern(template: string): RegExp {
  const source = template
    .split("/")
    .map((segment) =>
      /^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("/");
  return new RegExp(`^${source}/?$`);
}

export class PublishedApi {
  readonly documents: Record<GatewayName, SchemaNode>;
  readonly operations: PublishedOperation[] = [];
  readonly #ajv: Ajv;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor() {
    this.documents = {
      pe: JSON.parse(readFileSync(new URL(DOCUMENTS.pe, FIXTURES), "utf8")) as SchemaNode,
      um: JSON.parse(readFileSync(new URL(DOCUMENTS.um, FIXTURES), "utf8")) as SchemaNode,
    };
    // OpenAPI 3.0 schemas carry keywords JSON Schema does not know (`example`, `x-enum-varnames`,
    // `discriminator`); ajv's own OpenAPI keyword `nullable` is supported natively.
    this.#ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.#ajv);
    for (const gateway of ["pe", "um"] as const) {
      this.#ajv.addSchema(this.documents[gateway], gateway);
      for (const [template, item] of Object.entries(this.documents[gateway].paths as SchemaNode)) {
        for (const method of METHODS) {
          const operation = (item as SchemaNode)[method] as SchemaNode | undefined;
          if (!operation) continue;
          const byName = new Map<string, SchemaNode>();
          for (const parameter of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
            const resolved = this.resolve(gateway, parameter as SchemaNode);
            byName.set(`${resolved.in}:${resolved.name}`, resolved);
          }
          this.operations.push({
            gateway,
            method: method.toUpperCase(),
            template,
            operationId: String(operation.operationId ?? `${method} ${template}`),
            operation,
            parameters: [...byName.values()],
            label: `${method.toUpperCase()} ${template}`,
            pattern: templatePattern(template),
            literals: template.split("/").filter((segment) => segment !== "" && !segment.startsWith("{"))
              .length,
          });
        }
      }
    }
  }

  /** The operation a request names: its method and the path below the gateway prefix. */
  find(gateway: GatewayName, method: string, path: string): PublishedOperation | undefined {
    const matches = this.operations.filter(
      (operation) =>
        operation.gateway === gateway && operation.method === method && operation.pattern.test(path),
    );
    return matches.sort((a, b) => b.literals - a.literals)[0];
  }

  /** The operation of a method and a template as the documents write it (for the client's table). */
  byTemplate(gateway: GatewayName, method: string, template: string): PublishedOperation | undefined {
    return this.operations.find(
      (operation) =>
        operation.gateway === gateway && operation.method === method && operation.template === template,
    );
  }

  /** A node with its `$ref` (and the `$ref`s it lands on) followed. */
  resolve(gateway: GatewayName, node: SchemaNode): SchemaNode {
    let current = node;
    for (let hops = 0; typeof current?.$ref === "string"; hops++) {
      if (hops > 20) throw new Error(`a $ref cycle at ${String(node.$ref)}`);
      const pointer = (current.$ref as string).replace(/^#\//, "").split("/");
      current = pointer.reduce<SchemaNode>(
        (at, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")] as SchemaNode,
        this.documents[gateway],
      );
      if (!current) throw new Error(`unresolved $ref ${String(node.$ref)}`);
    }
    return current;
  }

  /** ajv's verdict on `value` against a schema of `gateway`'s document. */
  validate(gateway: GatewayName, schema: SchemaNode, value: unknown): { message: string; field: string }[] {
    const key = `${gateway}:${JSON.stringify(schema)}`;
    let validator = this.#compiled.get(key);
    if (!validator) {
      // The fragment's local `$ref`s point into its document, which ajv holds under the gateway's id.
      const rooted = JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${gateway}#/`));
      validator = this.#ajv.compile(rooted as object);
      this.#compiled.set(key, validator);
    }
    if (validator(value)) return [];
    return (validator.errors ?? []).map((error) => {
      const missing = (error.params as { missingProperty?: string }).missingProperty;
      // `/items/3/id` → `items[].id`: one name per field, whichever element broke it.
      const at = error.instancePath
        .replace(/\/\d+(?=\/|$)/g, "[]")
        .replace(/^\//, "")
        .replace(/\//g, ".");
      const field = missing ? (at ? `${at}.${missing}` : missing) : at || "(body)";
      return { field, message: error.message ?? "is invalid" };
    });
  }

  /** The gateway a full request path belongs to, and the path below its prefix. */
  static split(path: string): { gateway: GatewayName; below: string } | undefined {
    for (const gateway of ["pe", "um"] as const) {
      const prefix = GATEWAY_PREFIXES[gateway];
      if (path.startsWith(`${prefix}/`)) return { gateway, below: path.slice(prefix.length) };
    }
    return undefined;
  }
}
