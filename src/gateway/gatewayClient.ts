import { type Clock, systemClock } from "../domain/clock.ts";
import type { EventBus } from "../observability/events.ts";
import type { Logger } from "../observability/logger.ts";
import { type BenchmarkClient, createBenchmarkClient } from "./benchmarkClient.ts";
import type { UpstreamBudget } from "./budgetPort.ts";
import { createProjectEngineClient, type ProjectEngineClient } from "./projectEngineClient.ts";
import { DEFAULT_MAX_RETRIES } from "./retryPolicy.ts";
import { GatewayTransport } from "./transport.ts";
import { createUserManagerClient, type UserManagerClient } from "./userManagerClient.ts";

/** The per-attempt timeout of spec/gateway.md §1. */
export const DEFAULT_GATEWAY_TIMEOUT_MS = 15_000;

export interface GatewayClientOptions {
  /** PE origin (a path, if any, is ignored). */
  projectsBaseUrl: string;
  /** UM origin; pass the PE origin when they share one. */
  usersBaseUrl: string;
  events: EventBus;
  logger: Logger;
  /** Backoff waits go through it (tests pass a ManualClock); defaults to the system clock. */
  clock?: Clock;
  /** Per attempt, headers and body together; default 15 s. A timeout surfaces as status 504. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 2. */
  maxRetries?: number;
  /** Jitter source in [0, 1); default Math.random. */
  random?: () => number;
  /** The shared upstream budget (docs/decisions/0019); omitted = unlimited, no database round trip. */
  budget?: UpstreamBudget;
}

export interface GatewayClient {
  users: UserManagerClient;
  projects: ProjectEngineClient;
  /** A project's benchmarks, their brand URLs and its CI competitors (a brand's identity upstream). */
  benchmarks: BenchmarkClient;
  /**
   * The upstream-health probe: true when every gateway origin answers HTTP to a call carrying
   * `bearer` (`GET /v1/languages`; a 401 or 403 counts: the gateway is there), false on a timeout, a
   * network failure or a proxy's 502/503/504, and without sending anything for an unusable bearer.
   * No retry. Which bearer: src/runtime/upstreamHealth.ts.
   */
  reachable(bearer: string): Promise<boolean>;
  /** Closes the keep-alive pools; in-flight calls finish first. */
  close(): Promise<void>;
}

export function createGatewayClient(options: GatewayClientOptions): GatewayClient {
  return assemble(
    { pe: new URL(options.projectsBaseUrl).origin, um: new URL(options.usersBaseUrl).origin },
    options,
  );
}

/**
 * A client for a process with no gateway origins configured (e.g. `serenity migrate`, or a
 * runtime started without Semrush base URLs and without the simulator): every call fails with the
 * registry's `configurationError` (503) before sending anything, and `reachable` is false.
 */
export function createUnconfiguredGatewayClient(
  options: Pick<GatewayClientOptions, "events" | "logger" | "clock">,
): GatewayClient {
  return assemble(undefined, options);
}

function assemble(
  origins: { pe: string; um: string } | undefined,
  options: Omit<GatewayClientOptions, "projectsBaseUrl" | "usersBaseUrl">,
): GatewayClient {
  const clock = options.clock ?? systemClock;
  const transport = new GatewayTransport({
    origins,
    events: options.events,
    logger: options.logger.child({ component: "gateway" }),
    clock,
    timeoutMs: options.timeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    random: options.random ?? Math.random,
    budget: options.budget,
  });
  return {
    users: createUserManagerClient(transport),
    projects: createProjectEngineClient(transport, clock),
    benchmarks: createBenchmarkClient(transport),
    reachable: (bearer) => transport.probe(bearer),
    close: () => transport.close(),
  };
}
