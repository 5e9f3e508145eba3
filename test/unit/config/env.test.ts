import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig, workerPoolRule } from "../../../src/config/env.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { LogCapture } from "../../support/logCapture.ts";

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

  // The process boundary (one line on stderr, exit 1) is test/integration/cli/config.test.ts's, once;
  // which variable the line names is this function's, for each kind of bad value.
  it.each([
    ["PORT", "eighty"],
    ["DATABASE_URL", "mysql://nope"],
    ["SEMRUSH_PROJECTS_BASE_URL", "http://semrush.example.com"],
    ["SERENITY_CREDENTIAL_KEY", "too-short"],
  ])("a bad %s is one line naming it", (variable, value) => {
    const error = (() => {
      try {
        loadConfig({ [variable]: value });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as Error).message.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(variable);
  });
});

describe("the worker's settings (read once at boot, src/runtime/startWorker.ts reads them there)", () => {
  it("default: pool sample 60 s, upstream reconciler every 5 min with a 10 min grace, idle after 1 h at 12 calls an hour, job reconciler every 60 s, no token", () => {
    const config = loadConfig({});
    expect(config.worker).toEqual({
      poolSampleIntervalMs: 60_000,
      upstreamReconcile: { intervalMs: 300_000, graceMs: 600_000 },
      idleOrgs: { afterMs: 3_600_000, callsPerHour: 12 },
      jobReconcileIntervalMs: 60_000,
      concurrency: 10,
      probePort: 8081,
    });
    expect(config.upstreamToken).toBeUndefined();
  });

  it("takes SERENITY_JOB_RECONCILE_INTERVAL_MS in whole milliseconds; 0 or blank keeps the 60 s default", () => {
    expect(loadConfig({ SERENITY_JOB_RECONCILE_INTERVAL_MS: "15000" }).worker.jobReconcileIntervalMs).toBe(
      15_000,
    );
    expect(loadConfig({ SERENITY_JOB_RECONCILE_INTERVAL_MS: " 500 " }).worker.jobReconcileIntervalMs).toBe(
      500,
    );
    expect(loadConfig({ SERENITY_JOB_RECONCILE_INTERVAL_MS: "0" }).worker.jobReconcileIntervalMs).toBe(
      60_000,
    );
    expect(loadConfig({ SERENITY_JOB_RECONCILE_INTERVAL_MS: "  " }).worker.jobReconcileIntervalMs).toBe(
      60_000,
    );
  });

  it("takes the idle threshold and budget; a budget of 0 turns the idle pace off, a negative one is refused", () => {
    expect(
      loadConfig({ SERENITY_IDLE_ORG_AFTER_MS: "600000", SERENITY_IDLE_ORG_CALLS_PER_HOUR: "0" }).worker
        .idleOrgs,
    ).toEqual({ afterMs: 600_000, callsPerHour: 0 });
    expect(() => loadConfig({ SERENITY_IDLE_ORG_CALLS_PER_HOUR: "-1" })).toThrow(
      /SERENITY_IDLE_ORG_CALLS_PER_HOUR/,
    );
  });

  it("lets 0 turn the upstream reconciler off and make its grace immediate", () => {
    const config = loadConfig({
      SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS: "0",
      SERENITY_UPSTREAM_RECONCILE_GRACE_MS: "0",
    });
    expect(config.worker.upstreamReconcile).toEqual({ intervalMs: 0, graceMs: 0 });
  });

  it.each([
    "SERENITY_JOB_RECONCILE_INTERVAL_MS",
    "SERENITY_UPSTREAM_RECONCILE_INTERVAL_MS",
    "SERENITY_UPSTREAM_RECONCILE_GRACE_MS",
    "SERENITY_POOL_SAMPLE_INTERVAL_MS",
    // Per-use durations are checked at boot too, so no request meets a malformed one.
    "SERENITY_BRAND_LEASE_TIMEOUT_MS",
    "SERENITY_JOB_STALL_GRACE_MS",
  ])("fails the boot on a malformed %s, naming it", (variable) => {
    for (const value of ["60s", "-1", "1.5", "1e3", "soon"]) {
      expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [variable]: value })).toThrow(
        new RegExp(`${variable} must be a whole number of milliseconds`),
      );
    }
    expect(() => loadConfig({ [variable]: "3000000000" })).toThrow(
      new RegExp(`${variable} must be at most 2147483647 ms`),
    );
  });

  it("reads SERENITY_UPSTREAM_TOKEN trimmed (blank = none) and never lets it into a log line", () => {
    expect(loadConfig({ SERENITY_UPSTREAM_TOKEN: "   " }).upstreamToken).toBeUndefined();
    const config = loadConfig({ SERENITY_UPSTREAM_TOKEN: " operator-upstream-token-value \n" });
    expect(config.upstreamToken).toBe("operator-upstream-token-value");
    const capture = new LogCapture();
    const logger = createLogger({ level: "info", destination: capture });
    logger.info(config, "config as the line");
    logger.info({ config }, "config in a field");
    expect(capture.lines).toHaveLength(2);
    for (const line of capture.lines) {
      expect(line).not.toContain("operator-upstream-token-value");
      expect(line).toContain("[redacted]");
    }
  });

  it("reads several operator tokens separated by commas: the first is the probe's and the tools' (ADR 0044), none reaches a log line", () => {
    const config = loadConfig({ SERENITY_UPSTREAM_TOKEN: " first-operator-token , second-operator-token " });
    expect(config.upstreamToken).toBe("first-operator-token");
    expect(config.upstreamTokens).toEqual(["first-operator-token", "second-operator-token"]);
    const capture = new LogCapture();
    createLogger({ level: "info", destination: capture }).info({ config }, "config in a field");
    expect(capture.lines[0]).not.toContain("operator-token");
  });
});

describe("the database pool's settings and the worker's pool rule", () => {
  it("defaults: 20 connections, 10 s to get one, 30 s statement and idle-in-transaction timeouts, nested checkouts refused, 20 s shutdown grace", () => {
    const config = loadConfig({});
    expect(config.database).toEqual({
      poolSize: 20,
      acquireTimeoutMs: 10_000,
      statementTimeoutMs: 30_000,
      idleInTransactionTimeoutMs: 30_000,
      nestedAcquire: "throw",
    });
    expect(config.shutdownGraceMs).toBe(20_000);
  });

  it("reads each setting; 0 turns the server-side timeouts off; a bad value names its variable", () => {
    const config = loadConfig({
      SERENITY_DB_POOL_SIZE: "40",
      SERENITY_DB_ACQUIRE_TIMEOUT_MS: "2500",
      SERENITY_DB_STATEMENT_TIMEOUT_MS: "0",
      SERENITY_DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: "0",
      SERENITY_DB_NESTED_ACQUIRE: "warn",
      SERENITY_WORKER_CONCURRENCY: "30",
    });
    expect(config.database).toEqual({
      poolSize: 40,
      acquireTimeoutMs: 2500,
      statementTimeoutMs: 0,
      idleInTransactionTimeoutMs: 0,
      nestedAcquire: "warn",
    });
    expect(config.worker.concurrency).toBe(30);
    expect(() => loadConfig({ SERENITY_DB_POOL_SIZE: "0" })).toThrow(/SERENITY_DB_POOL_SIZE/);
    expect(() => loadConfig({ SERENITY_DB_NESTED_ACQUIRE: "ignore" })).toThrow(/SERENITY_DB_NESTED_ACQUIRE/);
    expect(() => loadConfig({ SERENITY_DB_ACQUIRE_TIMEOUT_MS: "soon" })).toThrow(
      /SERENITY_DB_ACQUIRE_TIMEOUT_MS/,
    );
  });

  it("a process that runs jobs needs its concurrency + 2 connections, and the message says how to fix it", () => {
    expect(workerPoolRule(12, 10)).toBeUndefined();
    expect(workerPoolRule(20, 10)).toBeUndefined();
    const problem = workerPoolRule(11, 10);
    expect(problem).toMatch(
      /SERENITY_DB_POOL_SIZE \(11\) must be at least SERENITY_WORKER_CONCURRENCY \(10\) \+ 2 = 12/,
    );
    expect(problem).toMatch(/raise the pool or lower the concurrency/);
  });
});
