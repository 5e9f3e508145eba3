import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GOLD_PARENT_WORKSPACE_ID } from "../../src/simulator/seeds.ts";
import { startSerenity } from "../support/serenityProcess.ts";

/** `serenity start` as a newcomer runs it: a fresh data dir, the embedded database, the banner. */

let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-start-"));
});
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

async function postmasterAlive(): Promise<boolean> {
  try {
    const pid = Number(
      (await fs.readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0],
    );
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("serenity start", () => {
  it("serves /healthz and /docs, stops cleanly on Ctrl-C, and a second start reuses the data", async () => {
    const first = await startSerenity(dataDir);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${first.url}/docs`)).status).toBeLessThan(400);
    expect(first.output()).toContain(`parent workspace ${GOLD_PARENT_WORKSPACE_ID}`);
    // The banner's first line is the console's address, and it serves the console's page.
    const firstLine = first
      .output()
      .split("\n")
      .find((line) => line.trim() !== "");
    expect(firstLine).toContain(`Open the console: ${first.url}/`);
    const consolePage = await fetch(`${first.url}/`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toContain('<div id="app">');
    const ready = await fetch(`${first.url}/readyz`);
    expect(await ready.json()).toEqual({
      status: "ready",
      checks: { database: true, migrations: true },
    });
    const auth = { authorization: `Bearer ${first.token}`, "content-type": "application/json" };
    const demo = await fetch(`${first.url}/v2/orgs/${first.demoOrgId}`, { headers: auth });
    expect(await demo.json()).toMatchObject({
      id: first.demoOrgId,
      parentWorkspaceId: GOLD_PARENT_WORKSPACE_ID,
    });
    const created = await fetch(`${first.url}/v2/orgs`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Kept" }),
    });
    expect(created.status).toBe(201);
    expect(await first.stop()).toBe(0);
    expect(await postmasterAlive()).toBe(false);

    await expect(fs.access(path.join(dataDir, "simulator-state.json"))).resolves.toBeUndefined();

    const second = await startSerenity(dataDir);
    try {
      expect(second.demoOrgId).toBe(first.demoOrgId);
      const list = await fetch(`${second.url}/v2/orgs`, {
        headers: { authorization: `Bearer ${second.token}` },
      });
      const names = ((await list.json()) as { items: { name: string }[] }).items.map((org) => org.name);
      expect(names).toContain("Kept");
    } finally {
      expect(await second.stop()).toBe(0);
    }
    expect(await postmasterAlive()).toBe(false);
    // Two cold starts and stops; each start has its own guard (startSerenity): this is a hang guard.
  }, 300_000);
});
