/**
 * A forwarding HTTP proxy between Serenity and the simulator that counts what Serenity SENDS, per
 * (bearer, endpoint group): requests started in any 1 s window and requests in flight at once. It
 * is independent of the simulator's limiter on purpose: the simulator counts only the calls its
 * limiter admitted (at most its limit, whatever a client sends), while a throttled call is still a
 * call the client sent. So the observer's peaks can exceed the limit — an unpaced client's do — and
 * a bench's "peaks ≤ 10" check on them can fail.
 *
 * A request is in flight here from its arrival at the proxy until the proxy has finished writing
 * the answer back: inside the client's own time in flight, so a client that never has more than N
 * in flight is never seen with more than N. Starts are counted on arrival at the proxy.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

import { endpointGroupOf } from "../../src/domain/endpointGroup.ts";
import { bearerHash } from "../../src/simulator/http/requestLimiter.ts";
import { gatewayOf } from "../../src/simulator/http/responses.ts";

export interface ObservedKey {
  bearer: string;
  group: string;
  sent: number;
  perSecondPeak: number;
  inFlightPeak: number;
}

interface KeyState extends ObservedKey {
  starts: number[];
  inFlight: number;
}

export interface UpstreamObserver {
  url: string;
  /** Forget every count (the start of a scenario). */
  reset(): void;
  /** Per (bearer, group) since the last reset. */
  report(): ObservedKey[];
  close(): Promise<void>;
}

export async function startUpstreamObserver(target: string): Promise<UpstreamObserver> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  let keys = new Map<string, KeyState>();

  const server = http.createServer((request, response) => {
    const path = request.url ?? "/";
    const gateway = gatewayOf(path);
    const authorization = request.headers.authorization ?? "";
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
    let done = () => {};
    if (gateway && bearer) {
      const group = endpointGroupOf(gateway, path);
      const id = `${bearerHash(bearer)} ${group}`;
      const state =
        keys.get(id) ??
        keys
          .set(id, {
            bearer: bearerHash(bearer),
            group,
            sent: 0,
            perSecondPeak: 0,
            inFlightPeak: 0,
            starts: [],
            inFlight: 0,
          })
          .get(id)!;
      const now = performance.now();
      while (state.starts.length > 0 && state.starts[0]! <= now - 1000) state.starts.shift();
      state.starts.push(now);
      state.sent += 1;
      state.perSecondPeak = Math.max(state.perSecondPeak, state.starts.length);
      state.inFlight += 1;
      state.inFlightPeak = Math.max(state.inFlightPeak, state.inFlight);
      const counted = keys;
      let open = true;
      done = () => {
        // A reset between arrival and answer starts a new count: the old one is not touched.
        if (open && counted === keys) state.inFlight -= 1;
        open = false;
      };
    }
    response.once("finish", done);
    response.once("close", done);
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path,
        headers: { ...request.headers, host: upstream.host },
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.once("error", () => {
      // The simulator dropped the connection (a fault rule): drop the client's too.
      request.socket.destroy();
    });
    request.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reset: () => {
      keys = new Map();
    },
    report: () =>
      [...keys.values()].map(({ bearer, group, sent, perSecondPeak, inFlightPeak }) => ({
        bearer,
        group,
        sent,
        perSecondPeak,
        inFlightPeak,
      })),
    close: async () => {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
