import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "../../../src/config/env.ts";

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      databaseUrl: undefined,
      gateway: undefined,
      logLevel: "info",
    });
    expect(config.dataDir.endsWith(".serenity")).toBe(true);
  });

  it("takes the gateway origins, UM falling back to PE, and accepts loopback http", () => {
    const config = loadConfig({ SEMRUSH_PROJECTS_BASE_URL: "http://127.0.0.1:4010/ignored/path" });
    expect(config.gateway).toEqual({
      projectsBaseUrl: "http://127.0.0.1:4010",
      usersBaseUrl: "http://127.0.0.1:4010",
    });
  });

  it("names the variable of a bad value", () => {
    expect(() => loadConfig({ PORT: "-1" })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "-1" })).toThrow(/PORT/);
    expect(() => loadConfig({ SEMRUSH_USERS_BASE_URL: "https://um.example" })).toThrow(
      /SEMRUSH_PROJECTS_BASE_URL/,
    );
    expect(() => loadConfig({ SERENITY_AUTH_JWKS_URL: "https://idp.example/jwks" })).toThrow(
      /SERENITY_AUTH_ISSUER/,
    );
  });
});
