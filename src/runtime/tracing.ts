import type { Logger } from "../observability/logger.ts";

/**
 * Turns tracing on for this process when the standard OTEL_EXPORTER_OTLP_ENDPOINT (or its traces
 * form, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: a tracer provider that batches spans to that
 * collector over OTLP/HTTP, the W3C trace-context propagator and an AsyncLocalStorage context.
 * Unset, nothing is loaded and src/observability/tracing.ts keeps the API's no-op tracer. The
 * exporter reads the other OTEL_EXPORTER_OTLP_* variables (headers, timeout) itself.
 */

export interface Tracing {
  /** Exports what is still buffered and stops; a no-op when tracing is off. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { shutdown: async () => {} };

export async function startTracing(
  role: "serve" | "worker" | "start",
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing> {
  const url = tracesUrlOf(env);
  if (!url) return OFF;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace-node"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/resources"),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME || "serenity",
      "serenity.process": role,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  // The endpoint may carry credentials in its URL: it is not logged.
  logger.info({ role }, "tracing on: spans are exported over OTLP/HTTP");
  return {
    shutdown: () =>
      provider.shutdown().catch((error: unknown) => {
        logger.warn({ err: error }, "could not flush the last spans");
      }),
  };
}

/** The traces form as given; the base form with the standard `/v1/traces` path appended. */
function tracesUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined;
}
