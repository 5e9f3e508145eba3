import { randomUUID } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { insertJob } from "../../../src/db/jobs/insertJob.ts";
import { createGatewayClient, type GatewayClient } from "../../../src/gateway/gatewayClient.ts";
import { defineJobHandler, type JobContext } from "../../../src/jobs/handler.ts";
import { LeaseLostError } from "../../../src/jobs/jobError.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { GOLD_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { createJobWorld, deferred, type JobWorld } from "../../support/jobWorld.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";
import { nextTurn } from "../../support/wait.ts";

/**
 * A job delivery writes upstream only while its lease has time left on the delivery's own clock
 * (spec/provisioning.md §10): a handler still running past its timeout — one that ignores its
 * signal — has its next write refused before it is sent, half the margin between the timeout and
 * the lease's TTL before the lease can lapse, even though the row still reads leased. The next
 * delivery then does the work once. The real gateway client over HTTP against the simulator,
 * whose call log counts the writes; time on the job world's manual clock.
 */
const TOKEN = "job-fence-token";
const TIMEOUT_MS = 5_000;
const TTL_MS = 10_000;

let db: TestDatabase;
let h: JobWorld;
let sim: TestSimulator;
let client: GatewayClient;
const deliveries: {
  started: ReturnType<typeof deferred<void>>;
  proceed: ReturnType<typeof deferred<void>>;
  saw?: unknown;
}[] = [];

const writer = defineJobHandler({
  type: "fenced-writer",
  publicType: "fencedWriterJob",
  timeoutMs: TIMEOUT_MS,
  leaseTtlMs: TTL_MS,
  maxAttempts: 3,
  async handle(ctx: JobContext) {
    const delivery = deliveries[ctx.attempt - 1]!;
    await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, { title: `first ${ctx.job.id}` });
    delivery.started.resolve();
    await delivery.proceed.promise; // ignores its abort signal on purpose
    try {
      await client.users.createSubWorkspace(TOKEN, GOLD_PARENT_WORKSPACE_ID, {
        title: `second ${ctx.job.id}`,
      });
      delivery.saw = "written";
    } catch (error) {
      delivery.saw = error;
      throw error;
    }
    return { written: true };
  },
});

beforeAll(async () => {
  db = await createTestDatabase();
  h = await createJobWorld(db, [writer]);
  sim = await startTestSimulator({ seed: "gold" });
  client = createGatewayClient({
    projectsBaseUrl: sim.url,
    usersBaseUrl: sim.url,
    events: new EventBus(),
    logger: createLogger({ level: "silent" }),
    clock: { now: () => new Date(), sleep: async () => undefined },
    timeoutMs: 5_000,
  });
});
afterAll(async () => {
  await client.close();
  await sim.close();
  await h.close();
  await db.destroy();
});

const childCreates = async () =>
  (await sim.calls()).filter(
    (call) => call.method === "POST" && /\/v2\/workspaces\/[^/]+\/child$/.test(call.path),
  ).length;

describe("the job lease's write fence", () => {
  it("refuses a late write of a delivery whose lease is nearly out on its own clock; the next delivery writes once", async () => {
    await sim.clearCalls();
    for (let i = 0; i < 2; i++) deliveries.push({ started: deferred<void>(), proceed: deferred<void>() });
    const id = randomUUID();
    await insertJob(db.db, {
      id,
      type: writer.type,
      orgId: randomUUID(),
      brandId: null,
      metadata: {},
      credentialId: null,
      createdBy: "user-1",
      now: h.clock.databaseTime(),
    });
    await h.queue.enqueue(id);
    const first = h.worker().pollOnce();
    await deliveries[0]!.started.promise;
    expect(await childCreates()).toBe(1);

    h.clock.advance(TIMEOUT_MS); // its timeout: the signal fires, the handler carries on
    await nextTurn(20);
    // Past TTL − (TTL − timeout) / 2 = 7.5 s, short of the lease's 10 s: the row still reads leased.
    h.clock.advance(3_000);
    expect((await h.job(id)).leaseToken).not.toBeNull();
    deliveries[0]!.proceed.resolve();
    await expect.poll(() => deliveries[0]!.saw).toBeInstanceOf(LeaseLostError);
    expect(await childCreates()).toBe(1);

    h.clock.advance(TTL_MS); // the runner's grace ends: it gives the lease back for a retry
    await first;
    await h.makeDue();
    deliveries[1]!.proceed.resolve();
    await h.worker().pollOnce();
    expect(deliveries[1]!.saw).toBe("written");
    expect(await h.job(id)).toMatchObject({ status: "COMPLETED", attempts: 2 });
    // The first delivery's one write, then the second delivery's two: its late write never went.
    expect(await childCreates()).toBe(3);
  });
});
