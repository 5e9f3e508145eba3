import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID, UNMETERED_PARENT_WORKSPACE_ID } from "../../../src/simulator/seeds.ts";
import { SERENITY_BIN } from "../../support/cli.ts";

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGTERM");
});

/** Runs `serenity simulator … --port 0` and resolves with the URL it prints. */
async function runSimulator(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [SERENITY_BIN, "simulator", "--port", "0", ...args], {
    cwd: path.resolve(import.meta.dirname, "../../.."),
    env: { ...process.env, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const match = /simulator at (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}: ${output}`)));
  });
}

const auth = { authorization: "Bearer cli-token" };

describe("serenity simulator", () => {
  it("--seed gold answers the 13/800 pool of the gold parent and the call log lists the call", async () => {
    const url = await runSimulator(["--seed", "gold"]);
    const resourcesPath = `/enterprise/users/api/v1/workspaces/${GOLD_PARENT_WORKSPACE_ID}/resources`;
    const response = await fetch(`${url}${resourcesPath}`, { headers: auth });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { product_resources: { ai: { resources: unknown } } };
    expect(body.product_resources.ai.resources).toEqual({
      projects: { used: 0, drafted: 0, total: 13 },
      prompts: { used: 0, drafted: 0, total: 800 },
    });
    const calls = await (await fetch(`${url}/__sim/calls`)).json();
    expect(calls).toEqual([
      {
        method: "GET",
        path: resourcesPath,
        status: 200,
        at: expect.any(String),
        receivedAt: expect.any(String),
        host: expect.any(String),
        group: "workspaces",
        throttled: false,
        account: expect.stringMatching(/^[0-9a-f]{12}$/),
      },
    ]);
  });

  it("--settings takes the request limits (rateLimit) and /__sim/rate reports them", async () => {
    const url = await runSimulator(["--settings", '{"rateLimit":{"perSecond":10,"concurrent":10}}']);
    const settings = (await (await fetch(`${url}/__sim/settings`)).json()) as { rateLimit: unknown };
    expect(settings.rateLimit).toEqual({ perSecond: 10, concurrent: 10 });
    const rate = (await (await fetch(`${url}/__sim/rate`)).json()) as { rateLimit: unknown; keys: unknown[] };
    expect(rate).toMatchObject({ rateLimit: { perSecond: 10, concurrent: 10 }, keys: [] });
  });

  it("loads a snapshot file, --metered turns metering on, --no-controls hides the controls", async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), "serenity-sim-"));
    try {
      const file = path.join(directory, "snapshot.json");
      await writeFile(
        file,
        JSON.stringify({
          workspaces: [
            {
              id: UNMETERED_PARENT_WORKSPACE_ID,
              title: "From file",
              parent_id: null,
              limits_enabled: { ai: false },
              resources: { projects: { total: 0 } },
            },
          ],
        }),
      );
      const url = await runSimulator(["--seed", file, "--metered", "--no-controls"]);
      const workspace = await fetch(
        `${url}/enterprise/users/api/v1/workspaces/${UNMETERED_PARENT_WORKSPACE_ID}`,
        {
          headers: auth,
        },
      );
      expect(await workspace.json()).toMatchObject({
        title: "From file",
        product_tiers: [{ product: { id: "ai", limits_enabled: true } }],
      });
      expect((await fetch(`${url}/__sim/calls`)).status).toBe(404);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
