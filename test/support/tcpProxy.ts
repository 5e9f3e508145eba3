import net from "node:net";

/**
 * A TCP proxy in front of a server (PostgreSQL) that a test cuts and heals: the network partition
 * between one process and its database, without touching the database itself. Two kinds:
 * - `cut()` resets every connection through it and resets each new one at once (the client sees
 *   its connection drop, as after a lost route);
 * - `drop()` is the silent partition, the common one (a firewall dropping packets, a peer gone
 *   without a word): nothing passes either way and nobody is told. Open connections stay open and
 *   hang; a new one is accepted by the kernel and then hears nothing; the server sees its sessions
 *   idle, not ended.
 * `heal()` forwards again: after a drop, what was held goes through, as TCP retransmits once the
 * path is back. Other clients of the server, connected directly, are not affected.
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
  /** Silently drops everything, both ways, until `heal()`; returns the local ports as `cut()` does. */
  drop(): number[];
  heal(): void;
  readonly isCut: boolean;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  let cut = false;
  let dropping = false;
  /** While dropping: what each side sent, delivered on heal. */
  const held: (() => void)[] = [];
  /** Connections accepted while dropping, connected upstream on heal. */
  const waiting: (() => void)[] = [];
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on("data", (chunk: Buffer) => {
      if (dropping) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
    from.on("end", () => to.end());
  };
  const connect = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
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
    forward(client, upstream);
    forward(upstream, client);
  };
  const server = net.createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    open.add(client);
    if (dropping) {
      // Accepted (the kernel did), then silence: no upstream until the path is back.
      client.on("data", (chunk: Buffer) => held.push(() => client.emit("data", chunk)));
      client.on("error", () => open.delete(client));
      waiting.push(() => {
        client.removeAllListeners("data");
        connect(client);
      });
      return;
    }
    connect(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const ports = () => [...upstreams].map((socket) => socket.localPort).filter((p) => p !== undefined);
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
      const reset = ports();
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
      upstreams.clear();
      return reset;
    },
    drop() {
      dropping = true;
      return ports();
    },
    heal() {
      cut = false;
      dropping = false;
      for (const connectNow of waiting.splice(0)) connectNow();
      for (const deliver of held.splice(0)) deliver();
    },
    get isCut() {
      return cut || dropping;
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
