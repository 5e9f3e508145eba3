import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

/**
 * Traces through the OpenTelemetry API only. Until a process registers an SDK (src/runtime/tracing.ts
 * does when OTEL_EXPORTER_OTLP_ENDPOINT is set) every tracer here is the API's no-op one: spans are
 * non-recording, contexts are not stored and nothing is exported. What a span may carry is listed
 * in docs/tracing.md: route templates, statuses, job types and ids — never a token, an org secret,
 * a prompt text or a filled URL.
 */

const TRACER_NAME = "serenity";

function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** The W3C trace context of a unit of work, as a job record stores it. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/**
 * The active span's W3C trace context, or null when there is none to carry (tracing off, or no
 * span is active): stored with a job record so the delivery that runs it continues the trace.
 */
export function currentTraceCarrier(): TraceCarrier | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  if (typeof carrier.traceparent !== "string") return null;
  return {
    traceparent: carrier.traceparent,
    ...(typeof carrier.tracestate === "string" ? { tracestate: carrier.tracestate } : {}),
  };
}

/** The context a stored (or received) carrier names; the root context when it names none. */
export function contextOfCarrier(carrier: Record<string, unknown> | null | undefined): Context {
  if (!carrier) return ROOT_CONTEXT;
  const headers: Record<string, string> = {};
  for (const key of ["traceparent", "tracestate"]) {
    const value = carrier[key];
    if (typeof value === "string") headers[key] = value;
  }
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** Records how a span's work ended: OK, or ERROR with the error's class name (never its message). */
function endWith(span: Span, error?: unknown): void {
  if (error === undefined) span.setStatus({ code: SpanStatusCode.OK });
  else {
    const type = error instanceof Error ? error.name : typeof error;
    span.setAttribute("error.type", type);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * Runs `work` in a span that is the active one for everything `work` starts (its upstream calls,
 * the jobs it enqueues), ended when `work` settles.
 */
async function inSpan<T>(
  name: string,
  options: { kind: SpanKind; attributes: Attributes; parent: Context },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan(
    name,
    { kind: options.kind, attributes: options.attributes },
    options.parent,
  );
  try {
    const result = await context.with(trace.setSpan(options.parent, span), () => work(span));
    endWith(span);
    return result;
  } catch (error) {
    endWith(span, error);
    throw error;
  }
}

/** One job delivery: a consumer span under the trace the job's record carries. */
export function withJobSpan<T>(
  job: { id: string; type: string; attempt: number; traceContext: Record<string, unknown> | null },
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `job ${job.type}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        "serenity.job.type": job.type,
        "serenity.job.id": job.id,
        "serenity.job.attempt": job.attempt,
      },
      parent: contextOfCarrier(job.traceContext),
    },
    () => work(),
  );
}

export interface UpstreamSpanFields {
  gateway: string;
  method: string;
  /** The templated route (`/v1/workspaces/{ws}/resources`), never the filled path. */
  route: string;
  group: string;
  /** 1 for the first attempt of a call, 2 for its first retry, … */
  attempt: number;
}

/**
 * One HTTP exchange with a gateway: a client span under the active one. `work` returns the status
 * the exchange ended with (an HTTP status, or the stand-in of a transport failure).
 */
export async function withUpstreamSpan<T extends { status: number }>(
  fields: UpstreamSpanFields,
  work: () => Promise<T>,
): Promise<T> {
  const span = tracer().startSpan(`${fields.method} ${fields.route}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "http.request.method": fields.method,
      "url.template": fields.route,
      "serenity.gateway": fields.gateway,
      "serenity.endpoint_group": fields.group,
      "serenity.attempt": fields.attempt,
    },
  });
  try {
    const result = await work();
    span.setAttribute("http.response.status_code", result.status);
    if (result.status >= 400) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    } else endWith(span);
    return result;
  } catch (error) {
    endWith(span, error);
    throw error;
  }
}

/** The server span of one HTTP request, opened when the route is known and ended with its answer. */
export interface RequestSpan {
  /** Runs the rest of the request with this span active. */
  run(next: () => void): void;
  end(status: number): void;
}

/**
 * Opens a request's server span, continuing the caller's trace when its `traceparent` header names
 * one. `route` is the route template (`/v2/orgs/:orgId/brands`), never the request's URL.
 */
export function startRequestSpan(request: {
  method: string;
  route: string;
  headers: Record<string, unknown>;
  requestId: string;
}): RequestSpan {
  const parent = contextOfCarrier(request.headers);
  const span = tracer().startSpan(
    `${request.method} ${request.route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": request.method,
        "http.route": request.route,
        "serenity.request_id": request.requestId,
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span);
  let ended = false;
  return {
    run: (next) => context.with(active, next),
    end: (status) => {
      if (ended) return;
      ended = true;
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
