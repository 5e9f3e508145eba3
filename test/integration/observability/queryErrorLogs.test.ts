import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { orgs } from "../../../src/db/schema.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { withJobSpan } from "../../../src/observability/tracing.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { LogCapture } from "../../support/logCapture.ts";

/**
 * Real Drizzle query errors against PostgreSQL, each with a secret among its parameters: neither
 * the log line nor the trace carries it, while the statement and the SQLSTATE stay
 * (docs/decisions/0038).
 */
const SECRET = "SEALED-Zm9vYmFyLXNlY3JldA";
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.destroy());

async function failure(query: () => Promise<unknown>): Promise<Error> {
  try {
    await query();
  } catch (error) {
    return error as Error;
  }
  throw new Error("the query did not fail");
}

describe("a database error's parameters", () => {
  it("never reach the log line: Drizzle's params, PostgreSQL's detail, a data exception's echo", async () => {
    const orgId = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    const now = new Date();
    await db.db.insert(orgs).values({ id: orgId, name: "First", createdAt: now, updatedAt: now });
    const errors = {
      // Drizzle: "Failed query: … params: …", an enumerable `params`, the cause's message.
      dataException: await failure(() => db.db.execute(sql`select ${SECRET}::uuid as id`)),
      // PostgreSQL's detail: "Key (id)=(…) already exists."
      uniqueViolation: await failure(() =>
        db.db.insert(orgs).values({ id: orgId, name: SECRET, createdAt: now, updatedAt: now }),
      ),
      // The pg error itself, unwrapped (a raw pool query).
      raw: await failure(() => db.pool.query("select $1::uuid", [SECRET])),
      // PostgreSQL's detail: "Failing row contains (…)".
      notNull: await failure(() =>
        db.pool.query("insert into orgs (id, name) values ($1, $2)", [orgId.replace("6f", "7f"), SECRET]),
      ),
    };
    // The errors are the real thing: each carries the secret somewhere a naive log would print.
    expect(JSON.stringify(errors.dataException, Object.getOwnPropertyNames(errors.dataException))).toContain(
      SECRET,
    );
    expect((errors.uniqueViolation as Error & { params?: unknown[] }).params).toContain(SECRET);
    expect(errors.raw.message).toContain(SECRET);

    const capture = new LogCapture();
    const logger = createLogger({ level: "info", destination: capture });
    for (const [what, error] of Object.entries(errors)) {
      logger.error({ err: error }, `query failed: ${what}`);
      logger.warn({ error }, `query failed again: ${what}`);
    }
    expect(capture.lines).toHaveLength(8);
    for (const line of capture.lines) expect(line).not.toContain(SECRET);
    const [dataException, , uniqueViolation, , raw] = capture.lines.map(
      (line) => JSON.parse(line) as { err: Record<string, string> },
    );
    // What a person needs stays: the statement, the code, the constraint.
    expect(dataException!.err.message).toContain("select $1::uuid as id");
    expect(uniqueViolation!.err.message).toContain('insert into "orgs"');
    expect(raw!.err.code).toBe("22P02");
  });

  it("never reach a trace: a job span that ends in one records its class only", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
    try {
      await withJobSpan({ id: "job-1", type: "test-job", attempt: 1, traceContext: null }, () =>
        db.db.execute(sql`select ${SECRET}::uuid`),
      ).catch(() => undefined);
      const spans = exporter.getFinishedSpans();
      expect(spans.length).toBeGreaterThan(0);
      expect(
        JSON.stringify(
          spans.map((span) => ({
            attributes: span.attributes,
            events: span.events,
            status: span.status,
            name: span.name,
          })),
        ),
      ).not.toContain(SECRET);
    } finally {
      await provider.shutdown();
    }
  });
});
