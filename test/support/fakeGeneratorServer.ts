import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

import { expect } from "vitest";

import { GeneratorError } from "../../src/generation/generatorError.ts";

/**
 * A fake generator service on 127.0.0.1 for the drs and openai generator tests: it records every
 * request exactly as received (method, path, headers, body) and answers with the test's script.
 * `hang` never answers (until close), to drive timeouts and aborts.
 */

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type FakeAnswer = { status: number; body: string | object; contentType?: string } | "hang";

export interface FakeGeneratorServer {
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startFakeGeneratorServer(
  answer: (request: ReceivedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakeGeneratorServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const request = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      received.push(request);
      const scripted = await answer(request, received.length - 1);
      if (scripted === "hang") return;
      const body = typeof scripted.body === "string" ? scripted.body : JSON.stringify(scripted.body);
      res.writeHead(scripted.status, { "content-type": scripted.contentType ?? "application/json" });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The GeneratorError a generator call rejected with (the test fails if it resolved or threw anything else). */
export async function failureOf(promise: Promise<unknown>): Promise<GeneratorError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GeneratorError);
  return error as GeneratorError;
}
