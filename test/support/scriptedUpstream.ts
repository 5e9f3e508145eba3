import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, beforeAll } from "vitest";

import { createGatewayClient, type GatewayClient } from "../../src/gateway/gatewayClient.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createLogger } from "../../src/observability/logger.ts";

/**
 * A tiny real HTTP server whose answers each test scripts, for the transport's unit tests (the
 * contract suite runs the same client against the simulator). Records every request it receives.
 */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void;

export interface ScriptedUpstream {
  origin: string;
  requests: ReceivedRequest[];
  /** Answers requests in order; the last handler repeats. */
  script(...handlers: Handler[]): void;
  close(): Promise<void>;
}

export function reply(status: number, body: unknown = "", contentType = "application/json"): Handler {
  return (_request, response) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    response.writeHead(status, text === "" ? {} : { "content-type": contentType });
    response.end(text);
  };
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  let handlers: Handler[] = [reply(200, {})];
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      const handler = handlers[Math.min(requests.length, handlers.length - 1)] ?? reply(200, {});
      requests.push(received);
      handler(received, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    script: (...next) => {
      handlers = next;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The adapter suites' world: a scripted upstream for the file, and a real gateway client on it with
 * a fixed clock and no retries (every scripted answer is seen once). `sent()` is the last request
 * as the upstream received it, its body parsed.
 */
export function useScriptedClient(): {
  readonly upstream: ScriptedUpstream;
  readonly client: GatewayClient;
  sent(): { method: string | undefined; url: string | undefined; body: unknown };
} {
  let upstream: ScriptedUpstream;
  let client: GatewayClient;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    client = createGatewayClient({
      projectsBaseUrl: upstream.origin,
      usersBaseUrl: upstream.origin,
      events: new EventBus(),
      logger: createLogger({ level: "silent" }),
      clock: { now: () => SCRIPTED_AT, sleep: async () => undefined },
      maxRetries: 0,
    });
  });
  afterAll(async () => {
    await client.close();
    await upstream.close();
  });
  return {
    get upstream() {
      return upstream;
    },
    get client() {
      return client;
    },
    sent() {
      const request = upstream.requests.at(-1);
      return {
        method: request?.method,
        url: request?.url,
        body: request?.body ? (JSON.parse(request.body) as unknown) : undefined,
      };
    },
  };
}

/** The fixed "now" of `useScriptedClient`'s client. */
export const SCRIPTED_AT = new Date("2026-02-03T04:05:06.000Z");
