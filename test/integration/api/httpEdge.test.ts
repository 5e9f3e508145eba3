import { readdirSync } from "node:fs";
import net from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { HTTP_TIMEOUTS } from "../../../src/api/app.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";
import { waitFor } from "../../support/wait.ts";

/**
 * The HTTP edge under hostile clients: a body that never finishes is cut (408, socket closed) and
 * its file descriptors come back; a body that is not well-formed Unicode is refused, never stored
 * with its characters silently replaced.
 */

let t: TestApp;
let origin: { host: string; port: number };
let token: string;

beforeAll(async () => {
  // Short timeouts for the test; the defaults are asserted below.
  t = await createTestApp({ http: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_000 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const address = t.app.server.address() as net.AddressInfo;
  origin = { host: "127.0.0.1", port: address.port };
  token = await t.token({ sub: "admin", admin: true });
});
const opened: net.Socket[] = [];
afterAll(async () => {
  for (const socket of opened) socket.destroy();
  await t.close();
});

const admin = { sub: "admin", orgIds: [], isAdmin: true, bearer: "" };

const openFds = () => readdirSync("/proc/self/fd").length;

describe("slow request bodies", () => {
  it("the defaults bound headers to 10 s and a whole request to 30 s", async () => {
    const defaults = await createTestApp({ db: t.db });
    try {
      expect(defaults.app.server.requestTimeout).toBe(HTTP_TIMEOUTS.requestTimeoutMs);
      expect(defaults.app.server.headersTimeout).toBe(HTTP_TIMEOUTS.headersTimeoutMs);
      expect(HTTP_TIMEOUTS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    } finally {
      await defaults.app.close();
    }
  });

  it("50 sockets that send 4 of 1,000 body bytes are answered 408 and closed; descriptors return", async () => {
    const baseline = openFds();
    const answers: string[] = [];
    let connected = 0;
    let closed = 0;
    const sockets = Array.from({ length: 50 }, () => {
      const socket = net.connect(origin, () => (connected += 1));
      opened.push(socket);
      socket.setEncoding("utf8");
      let answer = "";
      socket.on("data", (chunk: string) => (answer += chunk));
      socket.on("error", () => {});
      socket.on("close", () => {
        answers.push(answer);
        closed += 1;
      });
      socket.write(
        `POST /v2/orgs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na',
      );
      return socket;
    });
    await waitFor(() => connected === sockets.length, { timeoutMs: 60_000 });
    expect(openFds()).toBeGreaterThanOrEqual(baseline + sockets.length);
    // The server, not the client, ends them: none of these sockets is ever closed by us.
    await waitFor(() => closed === sockets.length, { timeoutMs: 60_000 });
    expect(answers.every((answer) => answer.startsWith("HTTP/1.1 408"))).toBe(true);
    await waitFor(() => openFds() <= baseline, { timeoutMs: 60_000 });
    // Nothing was created from a half body.
    expect(await t.services.orgs.list(admin)).toEqual([]);
  });
});

describe("bodies that are not well-formed Unicode", () => {
  const post = (payload: string | Buffer) =>
    t.app.inject({
      method: "POST",
      url: "/v2/orgs",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      payload,
    });

  it.each([
    [
      "invalid UTF-8 bytes",
      Buffer.concat([Buffer.from('{"name":"Ac'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    ],
    ["a lone high surrogate escape", '{"name":"Acme \\ud800"}'],
    ["a lone low surrogate escape", '{"name":"\\udc00 Acme"}'],
    ["a lone surrogate in a key", '{"\\ud83d":"x","name":"Acme"}'],
  ])("%s: 400 invalidRequest and nothing stored", async (_label, payload) => {
    const before = (await t.services.orgs.list(admin)).length;
    const response = await post(payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: "invalidRequest",
      message: "The request body must be well-formed UTF-8 text.",
    });
    expect(await t.services.orgs.list(admin)).toHaveLength(before);
  });

  it("a surrogate pair (an emoji, escaped or not) is well-formed and kept exactly", async () => {
    const escaped = await post('{"name":"Acme \\ud83d\\udca5"}');
    expect(escaped.statusCode).toBe(201);
    expect(escaped.json().name).toBe("Acme 💥");
    const raw = await post(JSON.stringify({ name: "Acme 💥 é" }));
    expect(raw.json().name).toBe("Acme 💥 é");
  });

  it("Fastify's protections still hold: prototype poisoning and broken JSON are 400", async () => {
    expect((await post('{"name":"x","__proto__":{"admin":true}}')).statusCode).toBe(400);
    expect((await post('{"name":')).json()).toMatchObject({ error: "invalidRequest" });
    expect((await post("")).statusCode).toBe(400);
  });
});
