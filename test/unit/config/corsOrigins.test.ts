import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "../../../src/config/env.ts";

/** SERENITY_CORS_ORIGINS: exact origins, none by default, `*` only outside production mode. */
const PRODUCTION = {
  NODE_ENV: "production",
  DATABASE_URL: "postgres://serenity@db.internal:5432/serenity",
  SEMRUSH_PROJECTS_BASE_URL: "https://api.semrush.example",
  SERENITY_AUTH_SECRET: "a-production-secret-that-is-long-enough-0123",
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

describe("SERENITY_CORS_ORIGINS", () => {
  it("is none by default", () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
  });

  it("reads a comma-separated list of origins, normalised and without duplicates", () => {
    const config = loadConfig({
      SERENITY_CORS_ORIGINS: " https://App.Example.com , http://localhost:5173,https://app.example.com/",
    });
    expect(config.corsOrigins).toEqual(["https://app.example.com", "http://localhost:5173"]);
  });

  it("refuses anything that is not an http(s) origin", () => {
    for (const value of [
      "https://app.example.com/path",
      "ftp://files.example",
      "app.example.com",
      "https://u:p@x.example",
    ]) {
      expect(refusal({ SERENITY_CORS_ORIGINS: value }), value).toMatch(/SERENITY_CORS_ORIGINS must be/);
    }
  });

  it("allows `*` in development and refuses it in production mode", () => {
    expect(loadConfig({ SERENITY_CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
    expect(loadConfig({ ...PRODUCTION, SERENITY_CORS_ORIGINS: "https://ui.example" }).corsOrigins).toEqual([
      "https://ui.example",
    ]);
    expect(refusal({ ...PRODUCTION, SERENITY_CORS_ORIGINS: "https://ui.example,*" })).toMatch(
      /SERENITY_CORS_ORIGINS .*refused in production/,
    );
  });
});
