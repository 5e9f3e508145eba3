import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "../../../src/config/env.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createApiApp } from "../../../src/runtime/httpServer.ts";
import { startProbeServer } from "../../../src/runtime/probeServer.ts";
import { openRuntime, type Runtime } from "../../../src/runtime/runtime.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

/**
 * The probes of a `serve` process (docs/decisions/0038), in process: readiness never waits behind
 * requests — with every connection of the request pool checked out and a caller queued for one,
 * `/readyz` still answers 200 from its own connection; and with SERENITY_METRICS_PORT set,
 * `/metrics` leaves the API's port for a port of its own.
 */
let db: TestDatabase;
let runtime: Runtime;
beforeAll(async () => {
  db = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: db.url,
    SERENITY_DB_POOL_SIZE: "2",
    SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 7).toString("base64"),
    SERENITY_AUTH_SECRET: "readiness-test-secret-0123456789",
  });
  runtime = await openRuntime(config, createLogger({ level: "silent" }));
});
afterAll(async () => {
  await runtime?.close();
  await db?.destroy();
});

describe("/readyz with the request pool saturated", () => {
  it("answers 200 from its own connection while requests queue for one", async () => {
    const app = await createApiApp(runtime);
    const pool = runtime.database.pool;
    const held: pg.PoolClient[] = [];
    // The queue holds one connection for good (its LISTEN session); take every other one.
    while (pool.totalCount < 2 || pool.idleCount > 0) held.push(await pool.connect());
    const queued = pool.query("select 1");
    try {
      expect(runtime.database.stats()).toMatchObject({ checkedOut: 2, idle: 0, waiting: 1 });
      const response = await app.inject({ method: "GET", url: "/readyz" });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ status: "ready", checks: { database: true, migrations: true } });
      // Answered while the request pool still had a caller waiting: it never used that pool.
      expect(runtime.database.stats().waiting).toBe(1);
    } finally {
      for (const client of held) client.release();
      await queued;
      await app.close();
    }
  });
});

describe("SERENITY_METRICS_PORT", () => {
  it("unset, /metrics is on the API's port; set, only on its own port, beside /healthz and /readyz", async () => {
    const shared = await createApiApp(runtime);
    const apart = await createApiApp({ ...runtime, config: { ...runtime.config, metricsPort: 0 } });
    const probes = await startProbeServer(runtime, { port: 0, host: "127.0.0.1" });
    try {
      const onApi = await shared.inject({ method: "GET", url: "/metrics" });
      expect(onApi.statusCode).toBe(200);
      expect(onApi.body).toContain("serenity_db_pool_connections");

      // No such public route any more: a request without a token is refused like any unknown path.
      const hidden = await apart.inject({ method: "GET", url: "/metrics" });
      expect(hidden.statusCode).toBe(401);
      expect(hidden.body).not.toContain("serenity_");
      expect((await apart.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
      const scraped = await fetch(`${probes.url}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain("serenity_db_pool_connections");
      expect((await fetch(`${probes.url}/readyz`)).status).toBe(200);
      expect((await fetch(`${probes.url}/healthz`)).status).toBe(200);
    } finally {
      await probes.close();
      await shared.close();
      await apart.close();
    }
  });
});
