import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "../../../src/config/env.ts";

/** Production mode refuses every development default, all named in one line. */
const COMPLETE = {
  NODE_ENV: "production",
  DATABASE_URL: "postgres://serenity@db.internal:5432/serenity",
  SEMRUSH_PROJECTS_BASE_URL: "https://api.semrush.example",
  SERENITY_AUTH_JWKS_URL: "https://idp.example/.well-known/jwks.json",
  SERENITY_AUTH_ISSUER: "https://idp.example/",
  SERENITY_AUTH_AUDIENCE: "serenity",
  SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString("base64"),
  HOST: "0.0.0.0",
};

function refusal(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return "started";
}

describe("production mode", () => {
  it("starts when every production setting is given", () => {
    const config = loadConfig(COMPLETE);
    expect(config).toMatchObject({
      host: "0.0.0.0",
      databaseUrl: COMPLETE.DATABASE_URL,
      gateway: { projectsBaseUrl: "https://api.semrush.example" },
    });
  });

  it("accepts an explicit auth secret instead of JWKS, and SERENITY_ENV instead of NODE_ENV", () => {
    const env = {
      ...COMPLETE,
      NODE_ENV: undefined,
      SERENITY_ENV: "production",
      SERENITY_AUTH_JWKS_URL: undefined,
      SERENITY_AUTH_ISSUER: undefined,
      SERENITY_AUTH_AUDIENCE: undefined,
      SERENITY_AUTH_SECRET: "a-shared-secret-of-enough-length",
    };
    expect(refusal(env)).toBe("started");
  });

  it("with nothing set, one line lists every missing setting", () => {
    const line = refusal({ NODE_ENV: "production" });
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toMatch(/^Production mode \(NODE_ENV=production\) refuses to start/);
    for (const variable of [
      "DATABASE_URL",
      "SEMRUSH_PROJECTS_BASE_URL",
      "SERENITY_AUTH_JWKS_URL",
      "SERENITY_AUTH_SECRET",
      "SERENITY_CREDENTIAL_KEY",
      "HOST",
    ]) {
      expect(line).toContain(variable);
    }
  });

  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ["no DATABASE_URL (embedded PostgreSQL)", { DATABASE_URL: undefined }, /DATABASE_URL/],
    [
      "no Semrush origin (the simulator)",
      { SEMRUSH_PROJECTS_BASE_URL: undefined },
      /SEMRUSH_PROJECTS_BASE_URL/,
    ],
    [
      "a loopback http Semrush origin",
      { SEMRUSH_PROJECTS_BASE_URL: "http://127.0.0.1:4010" },
      /SEMRUSH_PROJECTS_BASE_URL \(an https origin/,
    ],
    [
      "a loopback http users origin",
      { SEMRUSH_USERS_BASE_URL: "http://127.0.0.1:4010" },
      /SEMRUSH_USERS_BASE_URL \(an https origin\)/,
    ],
    [
      "no auth configuration (a generated secret)",
      {
        SERENITY_AUTH_JWKS_URL: undefined,
        SERENITY_AUTH_ISSUER: undefined,
        SERENITY_AUTH_AUDIENCE: undefined,
      },
      /SERENITY_AUTH_JWKS_URL with SERENITY_AUTH_ISSUER and SERENITY_AUTH_AUDIENCE, or SERENITY_AUTH_SECRET/,
    ],
    [
      "a plain-http JWKS URL",
      { SERENITY_AUTH_JWKS_URL: "http://idp.example/jwks" },
      /SERENITY_AUTH_JWKS_URL \(an https URL\)/,
    ],
    [
      "no credential key (a generated one)",
      { SERENITY_CREDENTIAL_KEY: undefined },
      /SERENITY_CREDENTIAL_KEY/,
    ],
    ["no explicit HOST (127.0.0.1)", { HOST: undefined }, /HOST \(an explicit listen address/],
  ];
  for (const [what, change, named] of cases) {
    it(`refuses ${what}, naming only that`, () => {
      const line = refusal({ ...COMPLETE, ...change });
      expect(line).toMatch(/^Production mode/);
      expect(line).toMatch(named);
      expect(line.split("; ")).toHaveLength(1);
    });
  }

  it("still requires the current values while previous ones are given for a rotation", () => {
    const previousOnly = refusal({
      ...COMPLETE,
      SERENITY_CREDENTIAL_KEY: undefined,
      SERENITY_CREDENTIAL_KEY_PREVIOUS: Buffer.alloc(32, 8).toString("base64"),
      SERENITY_BUDGET_KEY: Buffer.alloc(32, 8).toString("base64"),
    });
    expect(previousOnly).toMatch(/^Production mode .*SERENITY_CREDENTIAL_KEY \(shared/);
    const previousSecretOnly = refusal({
      ...COMPLETE,
      SERENITY_AUTH_JWKS_URL: undefined,
      SERENITY_AUTH_ISSUER: undefined,
      SERENITY_AUTH_AUDIENCE: undefined,
      SERENITY_AUTH_SECRET_PREVIOUS: "the-secret-before-the-rotation",
    });
    expect(previousSecretOnly).toMatch(/^Production mode .*SERENITY_AUTH_SECRET/);
    expect(
      refusal({
        ...COMPLETE,
        SERENITY_CREDENTIAL_KEY_PREVIOUS: Buffer.alloc(32, 8).toString("base64"),
        SERENITY_BUDGET_KEY: Buffer.alloc(32, 8).toString("base64"),
      }),
    ).toBe("started");
  });

  it("outside production mode the development defaults still apply", () => {
    expect(refusal({})).toBe("started");
    expect(refusal({ NODE_ENV: "development" })).toBe("started");
  });
});
