import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { startTcpProxy, type TcpProxy } from "../../support/tcpProxy.ts";
import { waitFor } from "../../support/wait.ts";
import { spawnWorker, type WorkerProcess } from "../../support/workerProcess.ts";

/**
 * A real `serenity worker` answers its probes and `/metrics` on a port of its own. Its database
 * goes through a proxy that can be cut: readiness follows the database, liveness does not.
 */
let db: TestDatabase;
let proxy: TcpProxy;
let worker: WorkerProcess;
let url: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const target = new URL(db.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  let output = "";
  worker = spawnWorker({
    DATABASE_URL: proxy.urlFor(db.url),
    SERENITY_CREDENTIAL_KEY: Buffer.alloc(32, 3).toString("base64"),
    SERENITY_DB_ACQUIRE_TIMEOUT_MS: "2000",
  });
  worker.child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  await worker.started;
  await waitFor(() => /worker probes at (http:\/\/\S+) /.test(output), {
    timeoutMs: 30_000,
    what: "the probe address in the worker's log",
  });
  url = /worker probes at (http:\/\/\S+) /.exec(output)![1]!;
}, 120_000);
afterAll(async () => {
  worker?.child.kill("SIGTERM");
  await worker?.exited;
  await proxy?.close();
  await db?.destroy();
});

describe("serenity worker's probe port", () => {
  it("answers liveness, readiness (database, migrations, the worker) and /metrics", async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: "ready",
      checks: { database: true, migrations: true, worker: true },
    });

    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    const text = await metrics.text();
    expect(text).toMatch(/^serenity_process_process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^# TYPE serenity_db_pool_\w+ gauge$/m);
    expect(text).toMatch(/^# TYPE serenity_jobs_total counter$/m);

    expect((await fetch(`${url}/elsewhere`)).status).toBe(404);
    expect((await fetch(`${url}/readyz`, { method: "POST" })).status).toBe(405);
  });

  it("is not ready while its database is unreachable, stays alive, and is ready again after", async () => {
    proxy.cut();
    try {
      await waitFor(async () => (await fetch(`${url}/readyz`)).status === 503, {
        timeoutMs: 30_000,
        what: "/readyz at 503",
      });
      const body = (await (await fetch(`${url}/readyz`)).json()) as { checks: Record<string, boolean> };
      expect(body.checks).toMatchObject({ database: false, worker: true });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      proxy.heal();
    }
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      what: "/readyz at 200 again",
    });
  });
});
