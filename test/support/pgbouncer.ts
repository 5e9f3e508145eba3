import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import pg from "pg";

import { freePort } from "../../src/config/freePort.ts";
import { waitFor } from "./wait.ts";

/** Debian's pgbouncer, as .ci/run installs it. */
export const PGBOUNCER_BIN = "/usr/sbin/pgbouncer";

export interface PgBouncer {
  /** `serverUrl` with its host and port replaced by PgBouncer's. */
  url: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer in front of `serverUrl`'s PostgreSQL, in `mode`, on a free loopback port: any
 * client user is accepted and connects to the server as the URL's user (`auth_type = any`, the
 * credentials in the database line). As root it drops to `nobody`, since PgBouncer refuses to run
 * as root.
 */
export async function startPgBouncer(serverUrl: string, mode: "session" | "transaction"): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "serenity-pgbouncer-"));
  const config = path.join(dir, "pgbouncer.ini");
  const credentials = `user=${decodeURIComponent(server.username)} password=${decodeURIComponent(server.password)}`;
  writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port} ${credentials}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      `pool_mode = ${mode}`,
      "default_pool_size = 40",
      "max_client_conn = 400",
      "ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout,options",
      ...(process.getuid?.() === 0 ? ["user = nobody"] : []),
      "",
    ].join("\n"),
  );
  let output = "";
  const child: ChildProcess = spawn(PGBOUNCER_BIN, [config], { stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited:\n${output}`);
      const client = new pg.Client({ connectionString: url.toString() });
      try {
        await client.connect();
        await client.query("select 1");
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => {});
      }
    },
    { what: "pgbouncer accepting connections" },
  );
  return {
    url: url.toString(),
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGINT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
