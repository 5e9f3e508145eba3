import { describe, expect, it } from "vitest";
import { z } from "zod";

import {
  errorResponses,
  EVERY_ROUTE,
  isDeclaredError,
  UPSTREAM_READ,
} from "../../../../src/api/schemas/routeErrors.ts";

function enumOf(schema: z.ZodType): string[] {
  return (z.toJSONSchema(schema) as unknown as { properties: { error: { enum: string[] } } }).properties.error
    .enum;
}

describe("errorResponses", () => {
  it("groups the given codes and every route's codes by status, each status its own enum", () => {
    const responses = errorResponses("brandExists", "marketExists", UPSTREAM_READ);
    expect(Object.keys(responses).map(Number)).toEqual([400, 401, 403, 404, 409, 429, 500, 502, 503]);
    expect(enumOf(responses[409]!)).toEqual(["brandExists", "marketExists"]);
    expect(enumOf(responses[503]!)).toEqual(["configurationError", "databaseUnavailable", "upstreamBusy"]);
    expect(enumOf(responses[401]!)).toEqual(["authenticationRequired"]);
    expect(z.toJSONSchema(responses[409]!).description).toMatch(/^`brandExists`: .+ `marketExists`: /);
  });

  it("a route with no codes of its own still declares the ones every route can answer", () => {
    const responses = errorResponses();
    expect(Object.keys(responses).map(Number)).toEqual([400, 401, 429, 500, 503]);
    expect(Object.values(responses).flatMap(enumOf).sort()).toEqual([...EVERY_ROUTE].sort());
  });

  it("answers any string at run time: a missing declaration is reported, never a failed serialisation", () => {
    const responses = errorResponses("notFound");
    const answer = {
      type: "/errors/brandBusy",
      title: "t",
      status: 404,
      detail: "m",
      instance: "urn:serenity:request:r",
      code: "brandBusy",
      requestId: "r",
      error: "brandBusy",
      message: "m",
    };
    expect(responses[404]!.safeParse(answer).success).toBe(true);
  });
});

describe("isDeclaredError", () => {
  const responses = { 200: z.object({}), ...errorResponses("notFound") };

  it("is true for a declared code under its status", () => {
    expect(isDeclaredError(responses, 404, "notFound")).toBe(true);
    expect(isDeclaredError(responses, 400, "invalidRequest")).toBe(true);
  });

  it("is false for a code under another status, or a status the route does not declare", () => {
    expect(isDeclaredError(responses, 404, "brandExists")).toBe(false);
    expect(isDeclaredError(responses, 409, "brandExists")).toBe(false);
  });

  it("is undefined for a route that declares no error responses this way", () => {
    expect(isDeclaredError(undefined, 404, "notFound")).toBeUndefined();
    expect(isDeclaredError({ 200: z.object({}) }, 404, "notFound")).toBeUndefined();
  });
});
