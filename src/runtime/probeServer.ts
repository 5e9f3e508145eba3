import http from "node:http";
import type { AddressInfo } from "node:net";

import type { Runtime } from "./runtime.ts";

/** A probe server: where it listens, and how to close it. */
export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}

/**
 * A port of its own for probes and scraping, apart from the API: `serenity worker`'s
 * (SERENITY_WORKER_PORT) and, when SERENITY_METRICS_PORT is set, `serenity serve`'s. Three routes,
 * no token — `/healthz` (the process answers), `/readyz` (database and migrations, plus `checks`'
 * own; never the upstream) and `/metrics` (this process's registry). Anything else is 404; only GET
 * and HEAD are served.
 */
export async function startProbeServer(
  runtime: Runtime,
  listenOn: { port: number; host: string },
  /** More readiness checks of this process (the worker: it has not begun stopping). */
  checks: () => Record<string, boolean> = () => ({}),
): Promise<ProbeServer> {
  const route = async (request: http.IncomingMessage, response: http.ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? "/", "http://worker").pathname;
    if (request.method !== "GET" && request.method !== "HEAD") {
      return sendJson(response, 405, { status: "method not allowed" });
    }
    if (path === "/healthz") return sendJson(response, 200, { status: "ok" });
    if (path === "/readyz") {
      const report = await runtime.readiness.check();
      const own = checks();
      const ready = report.ready && Object.values(own).every(Boolean);
      return sendJson(response, ready ? 200 : 503, {
        status: ready ? "ready" : "not ready",
        checks: { ...report.checks, ...own },
      });
    }
    if (path === "/metrics") {
      const body = await runtime.metrics.registry.metrics();
      response.writeHead(200, { "content-type": runtime.metrics.registry.contentType });
      response.end(body);
      return;
    }
    sendJson(response, 404, { status: "not found" });
  };
  const server = http.createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      runtime.logger.error({ err: error }, "probe failed");
      if (!response.headersSent) sendJson(response, 500, { status: "error" });
      else response.end();
    });
  });
  // A probe connection must never hold the process open at shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listenOn.port, listenOn.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = listenOn.host.includes(":") ? `[${listenOn.host}]` : listenOn.host;
  return {
    url: `http://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
