import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import {
  api,
  AUTH_SECRET,
  prepareOrg,
  type ServeProcess,
  startServe,
} from "../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * The API's limits hold across processes: two `serenity serve` children on one database, with
 * limits small enough to reach (10 requests per token, 15 per org) and a window of an hour, so no
 * window ends while the test runs. Requests alternate between the processes: each process sees
 * about half of them, so a limit kept in process memory would let twice as many through.
 */
const PER_TOKEN = 10;
const PER_ORG = 15;

let db: TestDatabase;
let sim: TestSimulator;
let serves: ServeProcess[] = [];
let org: { orgId: string; token: string };

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  const common = {
    databaseUrl: db.url,
    simulatorUrl: sim.url,
    env: {
      SERENITY_API_RATE_LIMIT_PER_TOKEN: String(PER_TOKEN),
      SERENITY_API_RATE_LIMIT_PER_ORG: String(PER_ORG),
      SERENITY_API_RATE_LIMIT_WINDOW_MS: String(3_600_000),
    },
  };
  // One after the other: two cold starts at once on a loaded 2-core machine outlast the start guard.
  serves = [await startServe(common)];
  serves.push(await startServe(common));
  org = await prepareOrg(serves[0]!.url);
}, 150_000);

afterAll(async () => {
  await Promise.all(serves.map((serve) => serve.stop()));
  await sim?.close();
  await db?.destroy();
});

async function readOrg(i: number, token: string, orgId: string) {
  const response = await fetch(`${serves[i % 2]!.url}/v2/orgs/${orgId}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as { error?: string },
  };
}

describe("per-token and per-org API limits across two serve processes", () => {
  it("lets one token make its limit's worth of requests over both processes, then answers 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PER_TOKEN; i += 1) statuses.push((await readOrg(i, org.token, org.orgId)).status);
    expect(statuses).toEqual(Array(PER_TOKEN).fill(200));
    for (const i of [PER_TOKEN, PER_TOKEN + 1]) {
      const limited = await readOrg(i, org.token, org.orgId);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe("rateLimited");
      expect(Number(limited.retryAfter)).toBeGreaterThan(0);
      expect(Number(limited.retryAfter)).toBeLessThanOrEqual(3_600);
    }
    // Health, readiness, metrics and docs are never limited, on either process.
    for (const serve of serves) {
      for (const route of ["/healthz", "/readyz", "/metrics", "/openapi.json"]) {
        expect((await fetch(`${serve.url}${route}`)).status, route).toBe(200);
      }
    }
    // The token keeps trying (a runaway client): every further request is refused, on both
    // processes ...
    for (let i = 0; i < PER_ORG; i += 1) expect((await readOrg(i, org.token, org.orgId)).status).toBe(429);
    // ... and its refused requests do not spend the org's budget: another token of the org still
    // has its own (10 of the org's 15 were served), so one runaway token cannot lock its org out.
    const other = await signDevToken(AUTH_SECRET, { sub: "second-caller", orgs: [org.orgId] });
    for (const i of [0, 1]) expect((await readOrg(i, other, org.orgId)).status).toBe(200);
  });

  it("counts every token of an org against the org's limit, on both processes", async () => {
    const admin = await signDevToken(AUTH_SECRET, { sub: "limit-admin", admin: true });
    const created = await api<{ id: string }>(serves[0]!.url, admin, "POST", "/v2/orgs", {
      name: "Limited org",
    });
    expect(created.status).toBe(201);
    const orgId = created.body.id;
    const alice = await signDevToken(AUTH_SECRET, { sub: "alice", orgs: [orgId] });
    const bob = await signDevToken(AUTH_SECRET, { sub: "bob", orgs: [orgId] });
    // An outsider's requests to the org are 404 and never count against it.
    const outsider = await signDevToken(AUTH_SECRET, { sub: "mallory", orgs: [] });
    for (let i = 0; i < 4; i += 1) expect((await readOrg(i, outsider, orgId)).status).toBe(404);

    const statuses: number[] = [];
    // 8 by alice and 7 by bob, alternating processes: the org's 15, each token under its 10.
    for (let i = 0; i < PER_ORG; i += 1)
      statuses.push((await readOrg(i, i % 2 === 0 ? alice : bob, orgId)).status);
    expect(statuses).toEqual(Array(PER_ORG).fill(200));
    for (const [i, token] of [alice, bob].entries()) {
      const limited = await readOrg(i, token, orgId);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe("rateLimited");
      expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    }
  });
});
