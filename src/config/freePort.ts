import net from "node:net";

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it; the listener is closed
 * again before it answers): for the embedded PostgreSQL and the processes tests and benchmarks start.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
