import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The committed OpenAPI document generates a TypeScript client that compiles, with a well-kept
 * generator (openapi-typescript), and a small program written the way an integrator would write it
 * type-checks against it: named operations, problem details, the paging and 202 shapes, documented
 * headers. A program with a mistake does not, so the check can fail.
 */
const DOCUMENT = path.resolve("docs/openapi.json");
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "serenity-client-"));
  const ast = await openapiTS(pathToFileURL(DOCUMENT));
  writeFileSync(path.join(dir, "schema.ts"), astToString(ast));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function diagnosticsOf(program: string): string[] {
  const file = path.join(dir, `program-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, program);
  const compiled = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  });
  return ts
    .getPreEmitDiagnostics(compiled)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
}

const PROGRAM = `
import type { components, operations } from "./schema.ts";

type OrgPage = operations["listOrgs"]["responses"][200]["content"]["application/json"];
const page: OrgPage = {
  items: [{ id: "o", name: "Acme", parentWorkspaceId: null, createdAt: "t", updatedAt: "t" }],
  nextCursor: null,
};
const next: operations["listBrands"]["parameters"]["query"] = { limit: "50", cursor: page.nextCursor ?? undefined };

type Problem = components["schemas"]["Problem"];
function describeProblem(problem: Problem): string {
  const fields = (problem.errors ?? []).map((error) => \`\${error.in}\${error.pointer}: \${error.code}\`);
  return \`\${problem.code} \${problem.status} \${problem.type} \${problem.requestId} \${fields.join(", ")}\`;
}
type CreateConflict = operations["createBrand"]["responses"][409]["content"]["application/problem+json"];
const conflict: CreateConflict["code"] = "brandExists";

type MarketAccepted = operations["createMarket"]["responses"][202];
const location: MarketAccepted["headers"]["Location"] = "/v2/orgs/o/brands/b/serenity/jobs/j";
const accepted: MarketAccepted["content"]["application/json"] = {
  jobId: "j",
  status: "IN_PROGRESS",
  job: { id: "j", type: "createSemrushMarket", status: "IN_PROGRESS", location },
};
type Busy = operations["createMarket"]["responses"][503];
const retryAfter: Busy["headers"]["Retry-After"] = 2;

type Polled = operations["getJob"]["responses"][200]["content"]["application/json"];
function deletedBrandOf(job: Polled): string | undefined {
  if (job.type !== "deleteBrand" || job.result === null) return undefined;
  const result: components["schemas"]["DeleteBrandJob"]["result"] = { brandId: job.id, status: "deleted" };
  return result?.brandId;
}

export { accepted, conflict, deletedBrandOf, describeProblem, next, retryAfter };
`;

describe("a client generated from docs/openapi.json", () => {
  it("compiles, and a program using its operations, problems, pages and 202s type-checks", () => {
    expect(diagnosticsOf(PROGRAM)).toEqual([]);
  });

  it("catches a program that gets the API wrong", () => {
    const wrong = PROGRAM.replace(
      'const conflict: CreateConflict["code"] = "brandExists";',
      'const conflict: CreateConflict["code"] = "noSuchCode";',
    );
    expect(diagnosticsOf(wrong).join("\\n")).toMatch(/noSuchCode/);
  });

  it("names every operation, describes every response, and leaves response schemas open", () => {
    const document = JSON.parse(readFileSync(DOCUMENT, "utf8")) as {
      paths: Record<
        string,
        Record<
          string,
          {
            operationId?: string;
            responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
          }
        >
      >;
    };
    const ids: string[] = [];
    for (const [route, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.operationId, `${method} ${route}`).toMatch(/^[a-z][A-Za-z]+$/);
        ids.push(operation.operationId!);
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(response.description, `${method} ${route} ${status}`).not.toBe("Default Response");
          expect(JSON.stringify(response.content ?? {}), `${method} ${route} ${status}`).not.toContain(
            '"additionalProperties":false',
          );
        }
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});
