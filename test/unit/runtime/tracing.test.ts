import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { context, propagation, trace } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";

import { createLogger } from "../../../src/observability/logger.ts";
import { currentTraceCarrier, withJobSpan } from "../../../src/observability/tracing.ts";
import { startTracing } from "../../../src/runtime/tracing.ts";

const logger = createLogger({ level: "silent" });

afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("startTracing", () => {
  it("without OTEL_EXPORTER_OTLP_ENDPOINT leaves the no-op tracer: nothing records, nothing is carried", async () => {
    const tracing = await startTracing("serve", logger, {});
    const carried = await withJobSpan({ id: "j", type: "t", attempt: 1, traceContext: null }, async () => ({
      recording: trace.getActiveSpan()?.isRecording() ?? false,
      carrier: currentTraceCarrier(),
    }));
    expect(carried).toEqual({ recording: false, carrier: null });
    await tracing.shutdown();
  });

  it("with it, exports the spans to that collector over OTLP/HTTP and carries W3C context", async () => {
    const received: { url: string; bytes: number }[] = [];
    const collector = createServer((request, response) => {
      let bytes = 0;
      request.on("data", (chunk: Buffer) => (bytes += chunk.length));
      request.on("end", () => {
        received.push({ url: request.url ?? "", bytes });
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const { port } = collector.address() as AddressInfo;
    try {
      const tracing = await startTracing("worker", logger, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      });
      const carrier = await withJobSpan({ id: "j", type: "t", attempt: 1, traceContext: null }, async () =>
        currentTraceCarrier(),
      );
      expect(carrier?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      await tracing.shutdown();
      expect(received.length).toBeGreaterThan(0);
      expect(received[0]!.url).toBe("/v1/traces");
      expect(received[0]!.bytes).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});
