import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { type GenerationWorld, useGenerationWorld } from "../../support/generationWorld.ts";
import { TEST_AUTH_SECRET } from "../../support/testApp.ts";

/**
 * One trace from an HTTP request through the jobs it leads to and every upstream call they make:
 * an async market create with generation, with the SDK's in-memory exporter registered as a real
 * deployment registers its OTLP one. The API's span is the root; the create-market delivery is its
 * child (its record carried the request's trace context to the worker), the generation job the
 * create-market job enqueued continues under that delivery, and each gateway exchange is a client
 * span under the delivery (or request) that made it.
 */
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

let world: GenerationWorld;
useGenerationWorld((started) => (world = started));

let gatewayRequests = 0;
beforeAll(() => world.t.events.on("gateway.request", () => (gatewayRequests += 1)));
beforeEach(() => {
  exporter.reset();
  gatewayRequests = 0;
});

const spanId = (span: ReadableSpan) => span.spanContext().spanId;
const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

async function asyncMarketWithGeneration() {
  const { brandId } = await world.activeBrand();
  exporter.reset();
  gatewayRequests = 0;
  const accepted = await world.createMarket(brandId, {
    market: "FR",
    languageCode: "fr",
    async: true,
    generatePrompts: true,
  });
  expect(accepted.status).toBe(202);
  await world.drain();
  const lineage = await world.lineage(accepted.body.jobId as string);
  expect(lineage.at(-1)!.status).toBe("COMPLETED");
  return { brandId, jobId: accepted.body.jobId as string };
}

describe("a trace across the API, the worker and the upstream", () => {
  it("links the request, the create-market job, the generation job and every upstream call", async () => {
    const { jobId } = await asyncMarketWithGeneration();
    const spans = exporter.getFinishedSpans();

    const [request, ...otherRequests] = spans.filter((span) => span.kind === SpanKind.SERVER);
    expect(otherRequests).toEqual([]);
    expect(request!.name).toBe("POST /v2/orgs/:orgId/brands/:brandId/serenity/markets");
    expect(request!.attributes["http.response.status_code"]).toBe(202);
    const traceId = request!.spanContext().traceId;
    expect(spans.every((span) => span.spanContext().traceId === traceId)).toBe(true);

    const jobs = spans.filter((span) => span.kind === SpanKind.CONSUMER);
    const createMarket = jobs.filter((span) => span.attributes["serenity.job.id"] === jobId);
    expect(createMarket.length).toBeGreaterThan(0);
    // Every delivery of the job the request enqueued is a child of the request's span.
    for (const delivery of createMarket) expect(parentId(delivery)).toBe(spanId(request!));

    const generation = jobs.filter(
      (span) => span.attributes["serenity.job.type"] === "generate-market-prompts",
    );
    expect(generation.length).toBeGreaterThan(0);
    // The generation job was enqueued by a job delivery: it continues under one.
    const jobSpanIds = new Set(jobs.map(spanId));
    for (const delivery of generation) expect(jobSpanIds.has(parentId(delivery)!)).toBe(true);

    // Every gateway exchange is one client span, under a delivery or the request that made it.
    const upstream = spans.filter((span) => span.kind === SpanKind.CLIENT);
    expect(upstream.length).toBe(gatewayRequests);
    const byId = new Map(spans.map((span) => [spanId(span), span]));
    const workOf = (span: ReadableSpan): ReadableSpan | undefined => {
      let parent = byId.get(parentId(span) ?? "");
      while (parent && parent.kind === SpanKind.INTERNAL) parent = byId.get(parentId(parent) ?? "");
      return parent;
    };
    for (const call of upstream) expect([SpanKind.CONSUMER, SpanKind.SERVER]).toContain(workOf(call)?.kind);
    // Both jobs made upstream calls of their own.
    for (const deliveries of [createMarket, generation]) {
      const ids = new Set(deliveries.map(spanId));
      expect(upstream.some((call) => ids.has(parentId(call)!))).toBe(true);
    }
    for (const call of upstream) {
      expect(call.attributes["http.request.method"]).toMatch(/^(GET|POST|PUT|PATCH|DELETE)$/);
      expect(call.attributes["url.template"]).toMatch(/^\/v\d+\//);
      expect(call.attributes["serenity.endpoint_group"]).toEqual(expect.any(String));
      expect(call.attributes["serenity.attempt"]).toBeGreaterThanOrEqual(1);
      expect(call.attributes["http.response.status_code"]).toEqual(expect.any(Number));
    }
  });

  it("carries no token, no secret, no prompt text and no filled id", async () => {
    const { brandId } = await asyncMarketWithGeneration();
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    const prompts = await world.call(
      "GET",
      `${world.brandsUrl()}/${brandId}/serenity/prompts?geoTargetId=2250&languageCode=fr&includeDrafts=true`,
    );
    const texts = (prompts.body.items as { text: string }[]).map((item) => item.text);
    expect(texts.length).toBeGreaterThan(0);
    const brand = await world.call("GET", `${world.brandsUrl()}/${brandId}`);
    const workspaceId = brand.body.subWorkspaceId as string;
    expect(workspaceId).toEqual(expect.any(String));

    const recorded = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })),
    );
    const [, payload, signature] = world.token.split(".");
    const forbidden = [world.token, payload!, signature!, TEST_AUTH_SECRET, brandId, workspaceId, ...texts];
    for (const secret of forbidden) expect(recorded.includes(secret), secret).toBe(false);
  });
});
