import net from "node:net";

import { describe, expect, it } from "vitest";

import { FREE_PORT_RANGE, freePort } from "../../../src/config/freePort.ts";

const { first, end } = FREE_PORT_RANGE;
/** The `random()` value that draws `port`. */
const drawing = (port: number) => (port - first + 0.5) / (end - first);

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("freePort", () => {
  it("draws a port below the kernel's ephemeral range, and it can be bound", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(first);
    expect(port).toBeLessThan(end);
    await new Promise<void>((resolve) => listen(port).then((server) => server.close(() => resolve())));
  });

  it("passes over a port something listens on and draws again", async () => {
    const taken = await listen(await freePort());
    try {
      const takenPort = (taken.address() as net.AddressInfo).port;
      const draws = [drawing(takenPort)];
      let other = takenPort;
      const port = await freePort(() => {
        const next = draws.shift();
        if (next !== undefined) return next;
        other = other + 1 < end ? other + 1 : first;
        return drawing(other);
      });
      expect(port).not.toBe(takenPort);
      expect(port).toBeGreaterThanOrEqual(first);
      expect(port).toBeLessThan(end);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
