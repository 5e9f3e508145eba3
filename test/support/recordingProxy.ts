import http from "node:http";
import type { AddressInfo } from "node:net";

import { request } from "undici";

import type { Exchange } from "./exchangeConformance.ts";

/**
 * An HTTP proxy in front of the simulator that keeps every exchange as it crossed the wire: what
 * the gateway client sent (method, path, query, headers, body) and what the simulator answered
 * (status, headers, body). Neither side knows it is there, so what it records is what live Semrush
 * would have received from the client, and what the client would have read from live.
 */
export interface RecordingProxy {
  /** The proxy's origin: give it to the gateway client instead of the simulator's. */
  url: string;
  readonly exchanges: Exchange[];
  close(): Promise<void>;
}

function headerMap(headers: http.IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const map: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers)) {
    map[key.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return map;
}

async function bodyOf(stream: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host", "content-length"]);

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const server = http.createServer((incoming, outgoing) => {
    void (async () => {
      const payload = await bodyOf(incoming);
      const url = new URL(incoming.url ?? "/", target);
      const requestHeaders = headerMap(incoming.headers);
      const forwarded = Object.fromEntries(
        Object.entries(requestHeaders).filter(([key]) => !HOP_BY_HOP.has(key)),
      ) as Record<string, string>;
      try {
        const answer = await request(url, {
          method: incoming.method as "GET",
          headers: forwarded,
          body: payload.length > 0 ? payload : undefined,
        });
        const responseBody = Buffer.from(await answer.body.arrayBuffer());
        const responseHeaders = headerMap(answer.headers);
        exchanges.push({
          method: incoming.method ?? "GET",
          path: url.pathname,
          query: [...url.searchParams.entries()],
          requestHeaders,
          requestBody: payload.toString("utf8"),
          status: answer.statusCode,
          responseHeaders,
          responseBody: responseBody.toString("utf8"),
        });
        const back = Object.fromEntries(
          Object.entries(responseHeaders).filter(([key]) => !HOP_BY_HOP.has(key)),
        ) as Record<string, string>;
        outgoing.writeHead(answer.statusCode, back);
        outgoing.end(responseBody);
      } catch {
        // The simulator dropped the connection: so does the proxy (the client sees what it would).
        outgoing.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
