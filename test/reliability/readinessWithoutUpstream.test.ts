import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { type ServeProcess, startServe } from "../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";
import { waitFor } from "../support/wait.ts";

/**
 * Readiness means "this process can serve": its database and migrations. A real `serve` whose
 * Semrush origin does not answer stays ready (an outage must not take every pod out of rotation),
 * and says so where an operator looks: `serenity_gateway_reachable 0`. Beside it, one on a live
 * simulator reads 1.
 */
let db: TestDatabase;
let sim: TestSimulator;
let down: ServeProcess;
let up: ServeProcess;

async function gaugeOf(serve: ServeProcess): Promise<string | undefined> {
  const text = await (await fetch(`${serve.url}/metrics`)).text();
  return /^serenity_gateway_reachable (\d)$/m.exec(text)?.[1];
}

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  // Port 9 on loopback (discard): nothing listens there, every connection is refused.
  // The probe sends the operator's upstream bearer (every call to Semrush carries one).
  const env = { SERENITY_UPSTREAM_TOKEN: "operator-upstream-token" };
  [down, up] = await Promise.all([
    startServe({ databaseUrl: db.url, simulatorUrl: "http://127.0.0.1:9", env }),
    startServe({ databaseUrl: db.url, simulatorUrl: sim.url, env }),
  ]);
}, 90_000);
afterAll(async () => {
  await Promise.all([down?.stop(), up?.stop()]);
  await sim?.close();
  await db?.destroy();
});

describe("/readyz and the upstream", () => {
  it("an unreachable upstream leaves the API ready, and the gauge reads 0", async () => {
    await waitFor(async () => (await gaugeOf(down)) === "0", { timeoutMs: 30_000, what: "the gauge at 0" });
    const ready = await fetch(`${down.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: true, migrations: true } });
    expect((await fetch(`${down.url}/healthz`)).status).toBe(200);
  });

  it("a reachable upstream reads 1, probed with the operator's bearer", async () => {
    await waitFor(async () => (await gaugeOf(up)) === "1", { timeoutMs: 30_000, what: "the gauge at 1" });
    expect((await fetch(`${up.url}/readyz`)).status).toBe(200);
    const probes = (await sim.calls()).filter((call) => call.path.endsWith("/v1/languages"));
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((call) => call.status === 200)).toBe(true);
  });
});
