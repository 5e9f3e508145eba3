import { describe, expect, it } from "vitest";

import { credentialExpiry, credentialTtlMs, jwtExpiry } from "../../../src/credentials/tokenExpiry.ts";

describe("credential expiry", () => {
  const now = new Date("2026-01-01T00:00:00Z");
  it("reads a JWT's exp without verifying, else now + TTL", () => {
    const payload = Buffer.from(JSON.stringify({ exp: 1_800_000_000 })).toString("base64url");
    expect(jwtExpiry(`h.${payload}.s`)?.getTime()).toBe(1_800_000_000_000);
    expect(jwtExpiry("opaque")).toBeUndefined();
    expect(jwtExpiry(`h.${Buffer.from("{not json").toString("base64url")}.s`)).toBeUndefined();
    expect(credentialExpiry("opaque", now, 5_000).getTime()).toBe(now.getTime() + 5_000);
  });

  it("parses SERENITY_CREDENTIAL_TTL with units, falling back to 1 h", () => {
    expect(credentialTtlMs({})).toBe(3_600_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "1500" })).toBe(1500);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "90s" })).toBe(90_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "30m" })).toBe(1_800_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "2h" })).toBe(7_200_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "soon" })).toBe(3_600_000);
  });
});
