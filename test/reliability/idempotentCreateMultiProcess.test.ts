import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { prepareOrg, type ServeProcess, startServe } from "../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * A client's retried create, across real processes: two `serenity serve` children on one database
 * and one simulator (the gold pool of 13 projects). The same brand create with a market — what a
 * client sends again after a timeout — goes to both processes at once, then again one after the
 * other. However many times and wherever it lands, the org ends with one brand, one sub-workspace
 * titled with its name and one project: one project unit spent, not one per retry.
 */
const BODY = { name: "Twin", domain: "twin.example", semrushMarket: { market: "US", languageCode: "en" } };
const KEY = "3f0c2a8e-twin-create-retry";

let db: TestDatabase;
let sim: TestSimulator;
let serves: ServeProcess[] = [];
let org: { orgId: string; token: string };

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  const common = { databaseUrl: db.url, simulatorUrl: sim.url };
  serves = await Promise.all([startServe(common), startServe(common)]);
  org = await prepareOrg(serves[0]!.url);
}, 90_000);

afterAll(async () => {
  await Promise.all(serves.map((serve) => serve.stop()));
  await sim?.close();
  await db?.destroy();
});

async function create(serve: ServeProcess, key: string | undefined) {
  const response = await fetch(`${serve.url}/v2/orgs/${org.orgId}/brands`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${org.token}`,
      "content-type": "application/json",
      ...(key === undefined ? {} : { "idempotency-key": key }),
    },
    body: JSON.stringify(BODY),
    // A hang guard, not a speed target.
    signal: AbortSignal.timeout(60_000),
  });
  return {
    status: response.status,
    replayed: response.headers.get("idempotent-replayed") === "true",
    body: (await response.json()) as { id?: string; error?: string },
  };
}

async function upstreamCounts() {
  const dump = await sim.dump();
  const titled = dump.workspaces.filter(
    (workspace) => workspace.parent_id === GOLD_PARENT_WORKSPACE_ID && workspace.title === BODY.name,
  );
  const ids = new Set(titled.map((workspace) => workspace.id));
  const projects = dump.projects.filter((project) => ids.has(project.workspace_id));
  return { subWorkspaces: titled.length, projects: projects.length };
}

async function brandsNamedTwin(): Promise<number> {
  const rows = await db.db.execute<{ n: number }>(
    sql`select count(*)::int as n from brands where org_id = ${org.orgId} and lower(name) = 'twin'`,
  );
  return rows.rows[0]!.n;
}

describe("a retried create on two serve processes", () => {
  it("sent concurrently and in sequence: one brand, one sub-workspace, one project", async () => {
    const [a, b] = serves as [ServeProcess, ServeProcess];
    // Concurrently: three copies to each process at once.
    const burst = await Promise.all([a, b, a, b, a, b].map((serve) => create(serve, KEY)));
    expect(
      burst.map((answer) => answer.status),
      JSON.stringify(burst),
    ).toEqual([201, 201, 201, 201, 201, 201]);
    const brandId = burst[0]!.body.id;
    expect(burst.every((answer) => answer.body.id === brandId)).toBe(true);
    // Exactly one of them ran; the others were answered from it.
    expect(burst.filter((answer) => !answer.replayed)).toHaveLength(1);

    // In sequence, alternating processes: the stored answer, nothing run again.
    for (const serve of [b, a, b]) {
      const again = await create(serve, KEY);
      expect(again).toMatchObject({ status: 201, replayed: true, body: { id: brandId } });
    }

    // Without the key the retry is refused by name, not made a second time.
    const keyless = await create(a, undefined);
    expect(keyless.status).toBe(409);
    expect(keyless.body.error).toBe("brandExists");

    expect(await brandsNamedTwin()).toBe(1);
    expect(await upstreamCounts()).toEqual({ subWorkspaces: 1, projects: 1 });
  }, 180_000);
});
