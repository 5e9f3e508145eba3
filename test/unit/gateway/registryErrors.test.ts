import { describe, expect, it } from "vitest";

import { GatewayError, type GatewayErrorKind } from "../../../src/gateway/errors.ts";
import { serviceErrorForGateway } from "../../../src/gateway/registryErrors.ts";

describe("upstream error mapping", () => {
  const error = (kind: GatewayErrorKind, status: number) =>
    new GatewayError({
      kind,
      status,
      method: "POST",
      route: "/v1/workspaces/{ws}/projects",
      gateway: "pe",
      body: "secret body",
    });

  it.each([
    ["unauthorized", 401, "authenticationRequired", "Upstream authorization failed"],
    ["forbidden", 403, "forbidden", "Upstream authorization failed"],
    ["conflict", 409, "conflict", "The request conflicts with the current state upstream."],
    ["meteredQuota", 405, "quotaExceeded", "The AI resource quota is exceeded."],
    ["gone", 404, "notFound", "The resource was not found."],
    ["unavailable", 504, "serenityUpstreamError", "The upstream service failed."],
    ["badRequest", 400, "serenityUpstreamError", "The upstream service failed."],
    [
      "rateLimited",
      429,
      "upstreamBusy",
      "The upstream's request limit for this account is reached; retry shortly.",
    ],
    ["poolExhausted", 422, "serenityUpstreamError", "The upstream service failed."],
    ["unexpectedResponse", 200, "serenityUpstreamError", "The upstream service failed."],
  ] as const)("%s (%i) → %s", (kind, status, code, message) => {
    const mapped = serviceErrorForGateway(error(kind, status));
    expect([mapped.code, mapped.message]).toEqual([code, message]);
    expect(mapped.message).not.toContain("secret body");
    expect(mapped.details).toEqual({ upstream: { kind, status, route: "/v1/workspaces/{ws}/projects" } });
  });
});
