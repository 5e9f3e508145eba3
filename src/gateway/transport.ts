import { performance } from "node:perf_hooks";

import { Pool } from "undici";
import type { z } from "zod";

import type { Clock } from "../domain/clock.ts";
import { endpointGroupOf } from "../domain/endpointGroup.ts";
import { ServiceError } from "../domain/errors.ts";
import type { UpstreamScope } from "../domain/upstreamBudget.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { withUpstreamSpan } from "../observability/tracing.ts";
import { type Attempt, errorOfAttempt, parseAnswer } from "./answers.ts";
import { BudgetExhausted, type BudgetPermit, type UpstreamBudget } from "./budgetPort.ts";
import { classifyAnswer, statusOfTransportFailure } from "./classifyError.ts";
import { GatewayError, type GatewayErrorKind } from "./errors.ts";
import { type AttemptOutcome, decideRetry } from "./retryPolicy.ts";
import { buildPath, type QueryValue } from "./routeTemplate.ts";
import type { GatewayName } from "./types.ts";
import { noteUpstreamCall } from "./upstreamCallTally.ts";
import { currentUpstreamScope, DEFAULT_SCOPE_BUDGET_MS } from "./upstreamScope.ts";
import { assertWriteFences } from "./writeFence.ts";

/**
 * The one place that talks HTTP to the gateways: keep-alive pools per origin, bearer forwarding,
 * the per-attempt timeout, the retry policy, classification into `GatewayError`, response
 * validation and the `gateway.request` events. The adapters above it only describe calls.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface GatewayRequest<T> {
  gateway: GatewayName;
  method: HttpMethod;
  /** Templated route below the gateway prefix, e.g. `/v1/workspaces/{ws}/resources`. */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Validates and maps a 2xx body; omitted when the body is not used (202/204 answers). */
  response?: z.ZodType<T>;
  /** A POST safe to repeat (absolute transfer, publish, text-deduplicated prompt create): retried on 5xx / lost answers. */
  idempotent?: boolean;
  /**
   * The caller's cancellation (e.g. a job's abort signal at its timeout). Aborting ends the call at
   * once — the attempt in flight and any retry wait — and is never retried: the call rejects with
   * the signal's `reason` itself, not a `GatewayError`, so an abandoned call can never read as an
   * `unavailable` upstream.
   */
  signal?: AbortSignal;
  /** Priority and deadline for the upstream budget; default: the ambient scope (upstreamScope.ts). */
  scope?: UpstreamScope;
}

/** The optional trailing argument of the client methods that accept a cancellation. */
export interface GatewayCallOptions {
  signal?: AbortSignal;
  /** Overrides the ambient upstream scope (priority and deadline) for this call. */
  scope?: UpstreamScope;
}

export interface TransportOptions {
  /** Undefined when no gateway is configured: every call then fails `configurationError` unsent. */
  origins: Record<GatewayName, string> | undefined;
  events: EventBus;
  logger: Logger;
  clock: Clock;
  timeoutMs: number;
  maxRetries: number;
  random: () => number;
  /**
   * The shared upstream budget (docs/decisions/0019); undefined = unlimited, and then a call costs
   * no database round trip at all.
   */
  budget?: UpstreamBudget | undefined;
}

/** An exchange the caller abandoned through its signal: not an upstream failure at all. */
type Exchange = Attempt | { type: "abandoned" };

/** nginx's "client closed request": the status an abandoned attempt is counted with in metrics. */
const ABANDONED_STATUS = 499;

/** The readiness probe never waits long: a hung gateway must not hang `/readyz`. */
const PROBE_TIMEOUT_CAP_MS = 5_000;

/** Answers a proxy in front of the gateway gives when the gateway behind it is down. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

// Control characters would make undici reject the header after we counted an attempt; refuse early.
function isUsableToken(bearer: string | undefined): bearer is string {
  if (typeof bearer !== "string" || bearer.trim() === "") return false;
  for (let i = 0; i < bearer.length; i += 1) {
    const code = bearer.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return false;
  }
  return true;
}

export class GatewayTransport {
  readonly #options: TransportOptions;
  readonly #pools = new Map<string, Pool>();

  constructor(options: TransportOptions) {
    this.#options = options;
  }

  async send<T>(bearer: string | undefined, request: GatewayRequest<T>): Promise<T> {
    const { gateway, method, route, signal } = request;
    if (!isUsableToken(bearer)) {
      // No upstream call without a user: fail like the gateway would, before sending anything.
      throw new GatewayError({ kind: "unauthorized", status: 401, method, route, gateway });
    }
    if (!this.#options.origins) throw new ServiceError("configurationError", { details: { gateway, route } });
    // A caller that gave up already sends nothing.
    signal?.throwIfAborted();
    const path = buildPath(gateway, route, request.params, request.query);
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization: `Bearer ${bearer}`,
    };
    let payload: string | undefined;
    if (request.body !== undefined) {
      payload = JSON.stringify(request.body);
      headers["content-type"] = "application/json";
    }

    const group = endpointGroupOf(gateway, route);
    const scope = this.#scopeOf(request);
    let retries = 0;
    let throttled = 0;
    for (;;) {
      const permit = await this.#permit(bearer, request, group, scope);
      let answered: Exchange;
      try {
        if (method !== "GET") this.#assertFenced(gateway, method, route);
        answered = await this.#attempt(
          gateway,
          method,
          route,
          path,
          headers,
          payload,
          this.#options.timeoutMs,
          signal,
          retries + throttled + 1,
        );
      } finally {
        // Runs for a throw too: a slot is never kept by a call that ended (its lease is the backstop).
        await this.#release(permit, group);
      }
      if (answered.type === "answer" && answered.status === 429) {
        this.#options.events.emit("upstream.throttled", { group });
        // The slot is already free; lowering the adaptive limit is a separate, rare statement.
        await this.#lower(permit, group);
      }
      if (answered.type === "abandoned") {
        this.#options.logger.info({ gateway, method, route }, "gateway call abandoned by its caller");
        throw abortReason(signal);
      }
      // An upstream body may echo the request (a proxy's error page, a debug dump): the bearer is
      // removed before the body can reach an error or a log line.
      const attempt: Attempt =
        answered.type === "answer" ? { ...answered, body: withoutSecret(answered.body, bearer) } : answered;
      if (attempt.type === "answer" && attempt.status >= 200 && attempt.status < 300) {
        return parseAnswer(request, attempt.status, attempt.body, this.#options.logger);
      }
      const outcome: AttemptOutcome =
        attempt.type === "answer"
          ? { type: "answer", status: attempt.status, retryAfter: attempt.retryAfter }
          : attempt;
      const decision = decideRetry({
        method,
        idempotent: request.idempotent === true,
        outcome,
        retriesSoFar: retries,
        throttledSoFar: throttled,
        deadlineAt: scope.deadlineAt,
        maxRetries: this.#options.maxRetries,
        now: this.#options.clock.now(),
        random: this.#options.random,
      });
      const error = errorOfAttempt(request, attempt);
      this.#logFailure(error, retries + throttled, decision.retry ? decision.waitMs : undefined);
      if (!decision.retry) {
        if (error.kind === "rateLimited")
          this.#options.events.emit("upstream.busy", { group, priority: scope.priority });
        throw error;
      }
      if (outcome.type === "answer" && outcome.status === 429) throttled += 1;
      else retries += 1;
      // An abort during the wait rejects with the signal's reason: the retry is never sent.
      await this.#options.clock.sleep(decision.waitMs, signal);
      signal?.throwIfAborted();
    }
  }

  /**
   * A write is sent only while every lease it is made under is still held (writeFence.ts): a
   * holder that can no longer renew stops before the write, not after it.
   */
  #assertFenced(gateway: GatewayName, method: HttpMethod, route: string): void {
    try {
      assertWriteFences();
    } catch (error) {
      this.#options.logger.warn(
        { gateway, method, route },
        "upstream write not sent: its lease may have lapsed",
      );
      throw error;
    }
  }

  /**
   * The call's priority, deadline and age: its own, else the ambient scope, else job priority. No call
   * waits past DEFAULT_SCOPE_BUDGET_MS (background scopes have no deadline of their own).
   */
  #scopeOf<T>(request: GatewayRequest<T>): UpstreamScope {
    const scope = request.scope ?? currentUpstreamScope();
    const bound = this.#options.clock.now().getTime() + DEFAULT_SCOPE_BUDGET_MS;
    return {
      priority: scope?.priority ?? "job",
      deadlineAt: Math.min(scope?.deadlineAt ?? bound, bound),
      ...(scope?.since !== undefined ? { since: scope.since } : {}),
    };
  }

  /**
   * A slot of the budget for one attempt (none when unlimited). A deadline that passes first ends
   * the call as `rateLimited` — which the registry answers `upstreamBusy` (503, Retry-After).
   */
  async #permit<T>(
    bearer: string,
    request: GatewayRequest<T>,
    group: ReturnType<typeof endpointGroupOf>,
    scope: UpstreamScope,
  ): Promise<BudgetPermit | undefined> {
    const budget = this.#options.budget;
    if (!budget) return undefined;
    const started = performance.now();
    try {
      const permit = await budget.acquire(bearer, group, scope, request.signal);
      this.#options.events.emit("upstream.budgetWait", {
        group,
        priority: scope.priority,
        outcome: "granted",
        seconds: (performance.now() - started) / 1000,
      });
      return permit;
    } catch (cause) {
      if (!(cause instanceof BudgetExhausted)) {
        if (request.signal?.aborted) throw abortReason(request.signal);
        throw cause;
      }
      this.#options.events.emit("upstream.budgetWait", {
        group,
        priority: scope.priority,
        outcome: "exhausted",
        seconds: (performance.now() - started) / 1000,
      });
      this.#options.events.emit("upstream.busy", { group, priority: scope.priority });
      const { gateway, method, route } = request;
      this.#options.logger.info(
        { gateway, method, route, group, priority: scope.priority },
        "no upstream budget before the deadline",
      );
      // Status 0: nothing was sent, so no upstream status exists (a log line must not read "429").
      throw new GatewayError({ kind: "rateLimited", status: 0, method, route, gateway, cause });
    }
  }

  async #release(permit: BudgetPermit | undefined, group: string): Promise<void> {
    if (!permit) return;
    await permit.release().catch((error: unknown) => {
      // The lease frees the slot later; the call's own outcome matters more than this failure.
      this.#options.logger.warn({ err: error, group }, "could not release an upstream budget slot");
    });
  }

  async #lower(permit: BudgetPermit | undefined, group: string): Promise<void> {
    if (!permit) return;
    await permit.reportThrottled().catch((error: unknown) => {
      this.#options.logger.warn({ err: error, group }, "could not lower the adaptive upstream limit");
    });
  }

  /**
   * Is each gateway origin answering HTTP? Sent with `bearer` like every call (live answers 401 to
   * an unauthenticated one, spec/gateway.md §8), no retry; any answer proves the gateway is there (a
   * 401 or a 403 included) except the 502/503/504 a proxy gives for a dead backend. Probes emit no
   * `gateway.request` event and take no upstream budget slot: one call per process and interval is
   * not traffic, and a health probe must not wait behind the work it reports on.
   */
  async probe(bearer: string): Promise<boolean> {
    const origins = this.#options.origins;
    if (!origins || !isUsableToken(bearer)) return false;
    const timeoutMs = Math.min(this.#options.timeoutMs, PROBE_TIMEOUT_CAP_MS);
    const targets: { gateway: GatewayName; path: string }[] = [
      { gateway: "pe", path: buildPath("pe", "/v1/languages") },
    ];
    if (origins.um !== origins.pe) {
      targets.push({
        gateway: "um",
        path: buildPath("um", "/v1/workspaces/{ws}/status", { ws: "readiness-probe" }),
      });
    }
    const results = await Promise.all(
      targets.map(async ({ gateway, path }) => {
        const attempt = await this.#exchange(
          gateway,
          "GET",
          path,
          { accept: "application/json", authorization: `Bearer ${bearer}` },
          undefined,
          timeoutMs,
          undefined,
        );
        return attempt.type === "answer" && !UNREACHABLE_STATUSES.has(attempt.status);
      }),
    );
    return results.every(Boolean);
  }

  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  #pool(gateway: GatewayName): Pool {
    const origin = this.#options.origins?.[gateway];
    if (!origin) throw new ServiceError("configurationError", { details: { gateway } });
    let pool = this.#pools.get(origin);
    if (!pool) {
      // One keep-alive pool per origin (UM and PE share one when they share the origin). Our own
      // per-attempt timer bounds every call, so undici's phase timeouts are only a backstop.
      pool = new Pool(origin, {
        connections: 64,
        keepAliveTimeout: 10_000,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  async #attempt(
    gateway: GatewayName,
    method: HttpMethod,
    route: string,
    path: string,
    headers: Record<string, string>,
    payload: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    attemptNumber: number,
  ): Promise<Exchange> {
    const started = performance.now();
    const group = endpointGroupOf(gateway, route);
    noteUpstreamCall();
    // One client span per exchange, named by the route template: ids stay out of traces too.
    const { attempt, status } = await withUpstreamSpan(
      { gateway, method, route, group, attempt: attemptNumber },
      async () => {
        const exchanged = await this.#exchange(gateway, method, path, headers, payload, timeoutMs, signal);
        return { attempt: exchanged, status: statusOf(exchanged) };
      },
    );
    this.#options.events.emit("gateway.request", {
      gateway,
      group,
      method,
      route,
      status,
      durationSeconds: (performance.now() - started) / 1000,
    });
    if (attempt.type === "answer" && attempt.status === 405) {
      this.#options.events.emit("gateway.quotaClassification", {
        matched: classifyAnswer(attempt) === "meteredQuota",
      });
    }
    return attempt;
  }

  /**
   * One HTTP exchange bounded by `timeoutMs` (headers and body together) and by the caller's
   * `signal`, whichever fires first. Never throws.
   */
  async #exchange(
    gateway: GatewayName,
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    payload: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Exchange> {
    if (signal?.aborted) return { type: "abandoned" };
    // One controller for both causes. A listener (removed below) rather than AbortSignal.any: the
    // caller's signal may outlive many calls and must not keep a dependent signal per attempt.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onCallerAbort = () => controller.abort();
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    try {
      const response = await this.#pool(gateway).request({
        method,
        path,
        headers,
        body: payload,
        signal: controller.signal,
      });
      const body = await response.body.text();
      const retryAfter = response.headers["retry-after"];
      return {
        type: "answer",
        status: response.statusCode,
        body,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      };
    } catch (cause) {
      // The caller's abort wins over a timeout that fired at the same moment: it is not retried.
      if (signal?.aborted) return { type: "abandoned" };
      return { type: timedOut ? "timeout" : "network", cause };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  #logFailure(error: GatewayError, retries: number, waitMs: number | undefined): void {
    const causeCode = (error.cause as { code?: unknown } | undefined)?.code;
    const fields = { ...error.toLog(), attempt: retries + 1, retryInMs: waitMs, causeCode };
    const level = NOISY_KINDS.has(error.kind) ? "warn" : "info";
    this.#options.logger[level](
      fields,
      waitMs === undefined ? "gateway call failed" : "gateway call failed; retrying",
    );
  }
}

/** Outages and bugs are worth a warning; expected answers (403, 404, quota…) stay at info. */
const NOISY_KINDS: ReadonlySet<GatewayErrorKind> = new Set([
  "unavailable",
  "rateLimited",
  "methodNotAllowed",
  "unexpectedResponse",
]);

/** The status an exchange is counted with: the answer's, or the stand-in of a failure. */
function statusOf(attempt: Exchange): number {
  if (attempt.type === "answer") return attempt.status;
  return attempt.type === "abandoned" ? ABANDONED_STATUS : statusOfTransportFailure(attempt.type);
}

/** What an aborted call rejects with: the signal's own reason (an `AbortError` when none was given). */
function abortReason(signal: AbortSignal | undefined): unknown {
  return signal?.reason ?? new DOMException("The gateway call was aborted.", "AbortError");
}

/** `text` with every occurrence of `secret` replaced; the secret never survives in upstream text. */
export function withoutSecret(text: string, secret: string): string {
  return secret.length > 0 && text.includes(secret) ? text.split(secret).join("[redacted]") : text;
}
