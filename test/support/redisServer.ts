import { type ChildProcess, spawn } from "node:child_process";

import { freePort } from "../../src/config/freePort.ts";

/**
 * A real Redis (Debian's `redis-server`, installed by .ci/run) on a free loopback port, with no
 * persistence: for the API limits' Redis store. `stop()` kills it, as an outage would.
 */
export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.once("error", (error) =>
      reject(
        new Error(`redis-server could not be started (Debian's redis-server package): ${error.message}`),
      ),
    );
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes("Ready to accept connections")) resolve();
    });
    void exited.then(() => reject(new Error(`redis-server exited before it was ready:\n${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
