import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { systemClock } from "../../../src/domain/clock.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobWorker } from "../../../src/jobs/worker.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/**
 * The raw upstream token must appear nowhere but sealed: not in any database column (other than
 * `credentials.sealed`), not in any log line, not in any response — even when an upstream error
 * echoes it into an exception.
 */

let t: TestApp;
let worker: JobWorker;
const responses: string[] = [];
let acceptedToken: string | undefined;

beforeAll(async () => {
  t = await createTestApp();
  t.services.jobs.registry.registerHandler(
    defineJobHandler({
      type: "scan-upstream",
      publicType: "scanUpstream",
      timeoutMs: 1_000,
      leaseTtlMs: 2_000,
      maxAttempts: 2,
      async handle(ctx) {
        const token = await ctx.credential();
        ctx.logger.info({ token, authorization: `Bearer ${token}` }, "calling upstream");
        if (token !== acceptedToken) {
          // A careless upstream client that echoes the credential into its error.
          throw Object.assign(new Error(`401 Unauthorized for Bearer ${token}`), { code: "NEEDS_REAUTH" });
        }
        return { written: 3 };
      },
    }),
  );
  worker = new JobWorker(
    {
      db: t.db.db,
      clock: systemClock,
      logger: createLogger({ level: "debug", destination: t.logs }),
      events: t.events,
      registry: t.services.jobs.registry,
      queue: t.services.jobs.queue,
      credentials: t.services.jobs.credentials,
    },
    { listen: false, reconcileIntervalMs: 0 },
  );
});
afterAll(async () => {
  await worker.stop();
  await t.close();
});

async function call(method: "GET" | "POST", url: string, token: string, payload?: object) {
  const response = await t.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    payload,
  });
  responses.push(JSON.stringify(response.headers) + response.body);
  return response;
}

async function allColumnsExceptSealed(): Promise<string[]> {
  const tables = await t.db.db.execute<{ schema: string; name: string }>(
    sql`select table_schema as schema, table_name as name from information_schema.tables
        where table_schema in ('public', 'pgboss', 'drizzle') and table_type = 'BASE TABLE'`,
  );
  const dumps: string[] = [];
  for (const { schema, name } of tables.rows) {
    const exclude = schema === "public" && name === "credentials" ? " - 'sealed'" : "";
    const rows = await t.db.db.execute<{ row: unknown }>(
      sql.raw(`select to_jsonb(t)${exclude} as row from "${schema}"."${name}" t`),
    );
    for (const { row } of rows.rows) dumps.push(`${schema}.${name}: ${JSON.stringify(row)}`);
  }
  return dumps;
}

describe("token scan", () => {
  it("finds no raw token in the database, the logs or the responses", async () => {
    const admin = await t.token({ sub: "admin-1", admin: true });
    const org = (await call("POST", "/v2/orgs", admin, { name: "Scan Org" })).json().id as string;
    const brand = (await call("POST", `/v2/orgs/${org}/brands`, admin, { name: "Scan Brand" })).json()
      .id as string;
    const firstToken = await t.token({ sub: "user-scan", orgs: [org], ttlSeconds: 700 });
    const freshToken = await t.token({ sub: "user-scan", orgs: [org], ttlSeconds: 800 });
    expect(firstToken).not.toBe(freshToken);

    const { jobId } = await t.services.jobs.submit({
      type: "scan-upstream",
      orgId: org,
      brandId: brand,
      metadata: { count: 3 },
      createdBy: "user-scan",
      credentialToken: firstToken,
    });
    await worker.drain();
    const jobUrl = `/v2/orgs/${org}/brands/${brand}/serenity/jobs/${jobId}`;
    expect((await call("GET", jobUrl, firstToken)).json()).toMatchObject({
      status: "FAILED",
      error: { code: "NEEDS_REAUTH", needsReauth: true },
    });

    acceptedToken = freshToken;
    expect((await call("POST", `${jobUrl}/reauth`, freshToken)).statusCode).toBe(202);
    await worker.drain();
    expect((await call("GET", jobUrl, freshToken)).json()).toMatchObject({
      status: "COMPLETED",
      result: { written: 3 },
    });

    const dumps = await allColumnsExceptSealed();
    expect(dumps.some((line) => line.includes("scan-upstream"))).toBe(true);
    expect(t.logs.lines.some((line) => line.includes("401 Unauthorized for Bearer [redacted]"))).toBe(true);
    for (const token of [firstToken, freshToken]) {
      // The signature part alone is enough to identify the token.
      const signature = token.split(".")[2]!;
      expect(dumps.filter((line) => line.includes(signature))).toEqual([]);
      expect(t.logs.lines.filter((line) => line.includes(signature))).toEqual([]);
      expect(responses.filter((body) => body.includes(signature))).toEqual([]);
    }
  });
});
