import net from "node:net";

/**
 * Ports below every common ephemeral range (Linux 32768–60999, macOS and Windows 49152–65535).
 * A port the kernel hands out for `listen(0)` lies inside that range, so between the check and the
 * real bind, any outgoing connection on the machine could take it; a port below the range is taken
 * only by something that asks for it by number.
 */
export const FREE_PORT_RANGE = { first: 20_000, end: 32_768 } as const;
const ATTEMPTS = 50;

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the listener is closed again before it
 * answers): for the embedded PostgreSQL and the processes tests and benchmarks start, which bind it
 * later (PostgreSQL after `initdb`) or again (a restart on the same address). Drawn from
 * FREE_PORT_RANGE; should that range be full, the kernel's choice.
 */
export async function freePort(random: () => number = Math.random): Promise<number> {
  const { first, end } = FREE_PORT_RANGE;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = first + Math.floor(random() * (end - first));
    if ((await listenOnce(port)) !== undefined) return port;
  }
  const port = await listenOnce(0);
  if (port === undefined) throw new Error("no free port on 127.0.0.1");
  return port;
}

/** Listens on `port` (0: any) and closes again: the port it had, or undefined if it was taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "EADDRINUSE" || error.code === "EACCES" ? resolve(undefined) : reject(error),
    );
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : undefined));
    });
  });
}
