import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { ERROR_CODES, ERROR_REGISTRY, isErrorCode } from "../../../src/domain/errors.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith(".ts") ? [full] : [];
  });
}

describe("the error registry", () => {
  it("registers every code used in src/", () => {
    const used = new Set<string>();
    const patterns = [/new ServiceError\(\s*"(\w+)"/g, /error: "(\w+)"/g, /errorCode: "(\w+)"/g];
    // The simulator models the upstream and answers with its own error bodies, not our registry.
    for (const file of sourceFiles("src").filter((name) => !name.startsWith(path.join("src", "simulator")))) {
      const text = readFileSync(file, "utf8");
      for (const pattern of patterns) for (const match of text.matchAll(pattern)) used.add(match[1]!);
    }
    expect(used.size).toBeGreaterThan(0);
    const unregistered = [...used].filter((code) => !isErrorCode(code) && !/^[A-Z_]+$/.test(code));
    expect(unregistered).toEqual([]);
  });

  it("documents every registered code, with its status, in the committed OpenAPI document", () => {
    const openapi = JSON.parse(readFileSync("docs/openapi.json", "utf8")) as {
      info: { description: string };
      components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } };
    };
    for (const code of ERROR_CODES) {
      expect(openapi.info.description).toContain(`| \`${code}\` | ${ERROR_REGISTRY[code].status} |`);
    }
    expect([...openapi.components.schemas.Problem.properties.code.enum].sort()).toEqual(
      [...ERROR_CODES].sort(),
    );
  });

  it("keeps every status a 4xx or 5xx and every message generic", () => {
    for (const code of ERROR_CODES) {
      const { status, message } = ERROR_REGISTRY[code];
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
      expect(message).not.toMatch(/\d{3,}|https?:|ws-|token/i);
    }
  });
});
