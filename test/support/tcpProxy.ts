import net from "node:net";

/**
 * A TCP proxy in front of a server (PostgreSQL) that a test cuts and heals: the network partition
 * between one process and its database, without touching the database itself. `cut()` resets
 * every connection through it and resets each new one at once (the client sees its connection
 * drop, as after a lost route); `heal()` forwards again. Other clients of the server, connected
 * directly, are not affected.
 */
export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /**
   * Resets every connection and refuses new ones; returns the local ports of the connections to
   * the server it reset (the `client_port` PostgreSQL shows for those sessions).
   */
  cut(): number[];
  heal(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    upstreams.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      upstreams.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop);
    upstream.on("error", drop);
    client.on("close", drop);
    upstream.on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    cut() {
      cut = true;
      const ports = [...upstreams].map((socket) => socket.localPort).filter((port) => port !== undefined);
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
      upstreams.clear();
      return ports;
    },
    heal() {
      cut = false;
    },
    get isCut() {
      return cut;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The host and port a PostgreSQL URL points at. */
export function targetOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5432) };
}
