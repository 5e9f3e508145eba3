import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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
