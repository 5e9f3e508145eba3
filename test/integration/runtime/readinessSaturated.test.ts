import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "../../../src/config/env.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createApiApp } from "../../../src/runtime/httpServer.ts";
import { openRuntime, type Runtime } from "../../../src/runtime/runtime.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";

/**
 * Readiness never waits behind requests (docs/decisions/0038): with every connection of the request
 * pool checked out and a caller queued for one, `/readyz` still answers 200 from its own connection.
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
