import { describe, expect, it } from "vitest";

import { bulkPromptsView } from "../../../src/api/views/bulkPromptsView.ts";
import { codeForLanguageName, languageNameFor } from "../../../src/catalogues/languageCodes.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { countryForGeoTargetId, countryName, geoTargetIdFor } from "../../../src/domain/geoTarget.ts";
import { GatewayError, type GatewayErrorKind } from "../../../src/gateway/errors.ts";
import { serviceErrorForGateway } from "../../../src/gateway/registryErrors.ts";
import { marketWriteTarget, resolveWriteTarget } from "../../../src/markets/writeTarget.ts";
import { checkCategory, checkPromptText } from "../../../src/prompts/promptText.ts";
import { promptType } from "../../../src/prompts/promptType.ts";

describe("geo targets", () => {
  it.each([
    ["US", 2840],
    ["fr", 2250],
    ["DE", 2276],
    ["GB", 2826],
    ["AD", 2020],
  ])("%s ↔ %i", (iso2, geoTargetId) => {
    expect(geoTargetIdFor(iso2)).toBe(geoTargetId);
    expect(countryForGeoTargetId(geoTargetId)).toBe(iso2.toUpperCase());
  });

  it.each(["ZZ", "USA", "U", "", "1A", "u$"])("rejects %j", (iso2) => {
    expect(geoTargetIdFor(iso2)).toBeUndefined();
  });

  it.each([0, 2000, 1840, 2999, 2840.5, -2840])("knows no country for %d", (id) => {
    expect(countryForGeoTargetId(id)).toBeUndefined();
  });

  it("names countries in English", () => {
    expect(countryName("us")).toBe("United States");
    expect(countryName("DE")).toBe("Germany");
  });
});

describe("language codes", () => {
  it.each([
    ["en", "English"],
    ["FR", "French"],
    ["tl", "Filipino"],
    ["zh", "Chinese"],
  ])("%s is %s", (code, name) => {
    expect(languageNameFor(code)).toBe(name);
  });

  it.each(["xx", "e", "engl", "e1", ""])("%j has no name", (code) => {
    expect(languageNameFor(code)).toBeUndefined();
  });

  it.each([
    ["English", "en"],
    ["french", "fr"],
    ["Norwegian", "no"],
    ["Hebrew", "he"],
    ["Filipino", "tl"],
  ])("%s → %s (two-letter codes first)", (name, code) => {
    expect(codeForLanguageName(name)).toBe(code);
  });

  it("an unknown name has no code", () => {
    expect(codeForLanguageName("Elvish of the West")).toBeUndefined();
  });
});

describe("resolveWriteTarget", () => {
  const org = { parentWorkspaceId: "parent" };
  const code = (run: () => unknown): [string, string] => {
    try {
      run();
    } catch (error) {
      if (error instanceof ServiceError) return [error.code, error.message];
      throw error;
    }
    return ["no error", ""];
  };

  it("a brand with a sub-workspace writes into it", () => {
    expect(resolveWriteTarget({ subWorkspaceId: "sub", provisioningStatus: "ready" }, org)).toEqual({
      workspaceId: "sub",
      flat: false,
      subWorkspaceId: "sub",
      parentWorkspaceId: "parent",
    });
  });

  it("a sub-workspace equal to the parent is misconfigured", () => {
    expect(
      code(() => resolveWriteTarget({ subWorkspaceId: "parent", provisioningStatus: "ready" }, org))[0],
    ).toBe("workspaceMisconfigured");
  });

  it("no sub-workspace and no provisioning history: flat, into the parent", () => {
    expect(resolveWriteTarget({ subWorkspaceId: null, provisioningStatus: null }, org)).toEqual({
      workspaceId: "parent",
      flat: true,
      subWorkspaceId: null,
      parentWorkspaceId: "parent",
    });
  });

  it("flat but the org has no parent: 400 with the fixed sentence", () => {
    expect(
      code(() =>
        resolveWriteTarget({ subWorkspaceId: null, provisioningStatus: null }, { parentWorkspaceId: null }),
      ),
    ).toEqual(["invalidRequest", "Organization has no Semrush workspace configured"]);
  });

  it.each(["pending", "failed", "ready"] as const)(
    "no sub-workspace but provisioning %s: incomplete",
    (status) => {
      expect(
        code(() => resolveWriteTarget({ subWorkspaceId: null, provisioningStatus: status }, org))[0],
      ).toBe("semrushProvisioningIncomplete");
    },
  );

  it("an existing market's target is where its project lives", () => {
    expect(marketWriteTarget("parent", org).flat).toBe(true);
    expect(marketWriteTarget("sub", org)).toMatchObject({ flat: false, subWorkspaceId: "sub" });
  });
});

describe("prompt rules", () => {
  const brand = { name: "Acme", aliases: ["Roadrunner Co", "  "] };

  it.each([
    ["Is ACME any good?", "branded"],
    ["acme vs others", "branded"],
    ["best roadrunner co products", "branded"],
    ["best anvils", "non-branded"],
    ["ac me", "non-branded"],
  ])("%j is %s", (text, type) => {
    expect(promptType(text, brand)).toBe(type);
  });

  it("trims texts and rejects empty, overlong and control characters", () => {
    expect(checkPromptText("  hello  ")).toEqual({ ok: true, value: "hello" });
    expect(checkPromptText("x".repeat(1000)).ok).toBe(true);
    expect(checkPromptText("x".repeat(1001))).toEqual({
      ok: false,
      message: "text must be at most 1000 characters",
    });
    expect(checkPromptText(" \n ")).toEqual({ ok: false, message: "text must not be empty" });
    expect(checkPromptText("a\u0007b")).toEqual({
      ok: false,
      message: "text must not contain control characters",
    });
    expect(checkCategory("c".repeat(101)).ok).toBe(false);
    expect(checkCategory(" pricing ")).toEqual({ ok: true, value: "pricing" });
  });
});

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
    ["gone", 404, "serenityUpstreamError", "The upstream service failed."],
    ["unavailable", 504, "serenityUpstreamError", "The upstream service failed."],
    ["badRequest", 400, "serenityUpstreamError", "The upstream service failed."],
    ["rateLimited", 429, "serenityUpstreamError", "The upstream service failed."],
    ["poolExhausted", 422, "serenityUpstreamError", "The upstream service failed."],
    ["unexpectedResponse", 200, "serenityUpstreamError", "The upstream service failed."],
  ] as const)("%s (%i) → %s", (kind, status, code, message) => {
    const mapped = serviceErrorForGateway(error(kind, status));
    expect([mapped.code, mapped.message]).toEqual([code, message]);
    expect(mapped.message).not.toContain("secret body");
    expect(mapped.details).toEqual({ upstream: { kind, status, route: "/v1/workspaces/{ws}/projects" } });
  });
});

describe("bulk result view", () => {
  it("201 only when every item was created, else 207 with registry statuses", () => {
    expect(bulkPromptsView([{ index: 0, outcome: "created", id: "1" }]).status).toBe(201);
    const mixed = bulkPromptsView([
      { index: 0, outcome: "created", id: "1" },
      { index: 1, outcome: "existed", id: "2" },
      { index: 2, outcome: "failed", code: "notFound", message: "m" },
      { index: 3, outcome: "failed", code: "quotaExceeded", message: "q" },
    ]);
    expect(mixed.status).toBe(207);
    expect(mixed.body.items.map((item) => item.status)).toEqual([201, 200, 404, 409]);
    expect(bulkPromptsView([{ index: 0, outcome: "existed", id: "1" }]).status).toBe(207);
  });
});
