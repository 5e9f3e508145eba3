import { randomBytes } from "node:crypto";

import { describe, expect, it } from "vitest";

import { accountKeyOf, budgetHashKey, upstreamSubjectOf } from "../../../src/budget/accountKey.ts";

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
const jwt = (claims: object) =>
  `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}.${randomBytes(16).toString("base64url")}`;

describe("the budget's account of a bearer is the upstream user it stands for", () => {
  const key = budgetHashKey(randomBytes(32));

  it("two tokens of one user (a refresh: new iat, exp, signature) are one account", () => {
    const first = jwt({ iss: "https://id.example", sub: "user-1", iat: 1, exp: 3601 });
    const refreshed = jwt({ iss: "https://id.example", sub: "user-1", iat: 3000, exp: 6600, jti: "x" });
    expect(first).not.toBe(refreshed);
    expect(accountKeyOf(key, first)).toBe(accountKeyOf(key, refreshed));
  });

  it("two users, or one subject of two issuers, are two accounts", () => {
    const one = accountKeyOf(key, jwt({ iss: "https://id.example", sub: "user-1" }));
    expect(accountKeyOf(key, jwt({ iss: "https://id.example", sub: "user-2" }))).not.toBe(one);
    expect(accountKeyOf(key, jwt({ iss: "https://other.example", sub: "user-1" }))).not.toBe(one);
  });

  it("an opaque token is its own account, never one of a JWT's subjects", () => {
    expect(upstreamSubjectOf("opaque-token-value")).toBe("opaque:opaque-token-value");
    expect(accountKeyOf(key, "opaque-a")).not.toBe(accountKeyOf(key, "opaque-b"));
    // Dots but no JSON, or JSON without a string sub: opaque.
    expect(upstreamSubjectOf("a.b.c")).toBe("opaque:a.b.c");
    expect(upstreamSubjectOf(jwt({ iss: "x" }))).toMatch(/^opaque:/);
    expect(upstreamSubjectOf(jwt({ sub: 42 }))).toMatch(/^opaque:/);
    // A subject holding the separator cannot pose as another (issuer, subject) pair.
    expect(upstreamSubjectOf(jwt({ iss: "a", sub: 'b","c' }))).not.toBe(
      upstreamSubjectOf(jwt({ iss: 'a","b', sub: "c" })),
    );
  });

  it("the stored key is a keyed hash: neither the token nor the subject", () => {
    const token = jwt({ iss: "https://id.example", sub: "user-1" });
    const stored = accountKeyOf(key, token);
    expect(stored).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain("user-1");
    expect(accountKeyOf(budgetHashKey(randomBytes(32)), token)).not.toBe(stored);
  });
});
