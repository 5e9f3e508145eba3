import { readdirSync, readFileSync, readlinkSync } from "node:fs";
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

/** The socket inodes among this process's open descriptors. */
function openSocketInodes(): Set<string> {
  const held = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) held.add(match[1]!);
    } catch {
      // closed between the listing and the read
    }
  }
  return held;
}

/**
 * The server's own descriptors for accepted connections, as socket inodes: the open sockets whose
 * TCP connection has the server's port as its local end. The test's client sockets have that port
 * as their remote end, so they are not counted, nor is the listening socket.
 */
function serverConnectionSockets(): Set<string> {
  const open = openSocketInodes();
  const server = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const localPort = Number.parseInt(fields[1]!.split(":")[1]!, 16);
      const listening = fields[3] === "0A";
      if (localPort === origin.port && !listening && open.has(fields[9]!)) server.add(fields[9]!);
    }
  }
  return server;
}

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

  // Hang guards only: each wait below gives up after a minute, and the test after all of them.
  it(
    "50 sockets that send 4 of 1,000 body bytes are answered 408 and closed; descriptors return",
    { timeout: 5 * 60_000 },
    async () => {
      expect(serverConnectionSockets().size).toBe(0);
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
      // The server held a descriptor for each of them (the client's own are not counted). Collected
      // over time, since the first may be cut before the last is accepted on a slow machine.
      const seen = new Set<string>();
      await waitFor(
        () => {
          for (const inode of serverConnectionSockets()) seen.add(inode);
          return seen.size >= sockets.length || closed === sockets.length;
        },
        { timeoutMs: 60_000 },
      );
      expect(seen.size).toBe(sockets.length);
      // The server, not the client, ends them: none of these sockets is ever closed by us.
      await waitFor(() => closed === sockets.length, { timeoutMs: 60_000 });
      expect(answers.every((answer) => answer.startsWith("HTTP/1.1 408"))).toBe(true);
      // Every descriptor the server held for them is closed (looked up by inode among the open
      // descriptors: a socket whose connection has ended can leave the TCP table while its
      // descriptor stays open), and, the client's sockets being closed too, the process is back to
      // the descriptors it had before.
      await waitFor(() => [...seen].every((inode) => !openSocketInodes().has(inode)), {
        timeoutMs: 60_000,
        what: "the server's descriptors for these connections closed",
      });
      await waitFor(() => openFds() <= baseline, {
        timeoutMs: 60_000,
        what: "descriptors back to the baseline",
      });
      // Nothing was created from a half body.
      expect(await t.services.orgs.list(admin)).toEqual([]);
    },
  );
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
