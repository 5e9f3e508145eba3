import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { type Database, openDatabase } from "../../../src/db/database.ts";
import { ServiceError } from "../../../src/domain/errors.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { createBrandLease } from "../../../src/locks/brandLease.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { ManualClock } from "../../support/manualClock.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { startTcpProxy, targetOf, type TcpProxy } from "../../support/tcpProxy.ts";

/**
 * A brand-lease holder that can no longer renew stops writing upstream (spec/provisioning.md §10):
 * the holder reaches PostgreSQL through a TCP proxy the test cuts, so its heartbeat's renewal
 * fails; its next upstream write is refused before it is sent (the simulator's call log shows
 * none), nobody else takes the brand until the lease has lapsed on the database's clock, and then
 * exactly one other holder does. Time moves on a manual clock that the lease statements read too.
 */
const TOKEN = "fence-user-token";
const TTL_MS = 30_000;
const logger = createLogger({ level: "silent" });

let db: TestDatabase;
let sim: TestSimulator;
let proxy: TcpProxy;
let cutOff: Database;
let client: GatewayClient;

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  proxy = await startTcpProxy(targetOf(db.url));
  cutOff = openDatabase(proxy.urlFor(db.url), { max: 4, acquireTimeoutMs: 2_000 });
  client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger,
    clock: { now: () => new Date(), sleep: async () => undefined },
    timeoutMs: 5_000,
  });
});
afterAll(async () => {
  await client.close();
  await cutOff.forceClose();
  await proxy.close();
  await sim.close();
  await db.destroy();
});
beforeEach(async () => {
  proxy.heal();
  await sim.clearCalls();
});

const childCreates = async () =>
  (await sim.calls()).filter(
    (call) => call.method === "POST" && /\/v2\/workspaces\/[^/]+\/child$/.test(call.path),
  ).length;

describe("a brand-lease holder cut off from PostgreSQL", () => {
  it("makes no upstream write once its renewal fails; the brand is taken over only after the lease lapsed, once", async () => {
    const clock = new ManualClock();
    const events = new EventBus();
    const cut = createBrandLease({ db: cutOff.db, clock, events, logger, ttlMs: TTL_MS });
    const other = createBrandLease({ db: db.db, clock, events, logger, ttlMs: TTL_MS });
    const brandId = randomUUID();

    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let goOn!: () => void;
    const gate = new Promise<void>((resolve) => (goOn = resolve));
    const holding = cut
      .withBrand(brandId, async () => {
        await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, { title: `held ${brandId}` });
        entered();
        await gate;
        await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, { title: `late ${brandId}` });
      })
      .catch((error: unknown) => error);
    await inside;
    expect(await childCreates()).toBe(1);

    // The partition: the holder's next renewal (a third of the TTL on) cannot reach the database.
    proxy.cut();
    await clock.untilSleeping(1);
    clock.advance(TTL_MS / 3);
    await clock.untilSleeping(1); // the heartbeat failed its renewal and sleeps again

    // Still live on the database's clock: nobody else may take it.
    const early = await other
      .withBrand(brandId, async () => "taken", { waitMs: 0 })
      .catch((error: unknown) => error);
    expect(early).toBeInstanceOf(ServiceError);
    expect((early as ServiceError).code).toBe("brandBusy");

    // The holder goes on: its write is refused before it is sent.
    goOn();
    const outcome = await holding;
    expect(outcome).toBeInstanceOf(ServiceError);
    expect((outcome as ServiceError).code).toBe("brandBusy");
    expect((outcome as ServiceError).details).toMatchObject({ brandId, reason: "leaseLost" });
    expect(await childCreates()).toBe(1);

    // Once the lease has lapsed on the database's clock, one other holder takes the brand.
    clock.advance(TTL_MS);
    let takeovers = 0;
    await other.withBrand(
      brandId,
      async () => {
        takeovers += 1;
        await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, { title: `next ${brandId}` });
      },
      { waitMs: 0 },
    );
    expect(takeovers).toBe(1);
    expect(await childCreates()).toBe(2);

    // Healed, the old holder does not come back: it ended, and nothing of it writes again.
    proxy.heal();
    clock.advance(TTL_MS);
    expect(await childCreates()).toBe(2);
  });
});
