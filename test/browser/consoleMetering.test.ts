import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { launchChromium } from "../support/chromium.ts";
import { checkPage, signIn, WAIT, watchForProblems } from "../support/consoleWorld.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { AUTH_SECRET, type ServeProcess, startServe } from "../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * Each parent's own metering in the console (spec/allocation.md §13): a real `serve` process with
 * SERENITY_DYNAMIC_ALLOCATION=true against the simulator, one org on a metered parent and one on a
 * parent that meters nothing (with a pool the size of nothing at all). The metered org's overview
 * draws its pool; the unmetered one's says allocation is not needed instead of an exhausted pool.
 * Both show the metering and when it was read, pass axe and fit a phone.
 */
let db: TestDatabase;
let sim: TestSimulator;
let serve: ServeProcess;
let browser: Browser;
let token: string;
const orgs: Record<"metered" | "unmetered", string> = { metered: "", unmetered: "" };

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${serve.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return (await response.json()) as T;
}

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "empty", settings: { settleReads: 0 } });
  serve = await startServe({ databaseUrl: db.url, simulatorUrl: sim.url });
  browser = await launchChromium();
  token = await signDevToken(AUTH_SECRET, { sub: "operator", admin: true });
  for (const kind of ["metered", "unmetered"] as const) {
    const parentWorkspaceId = await sim.addParent({
      title: `${kind} parent`,
      metered: kind === "metered",
      ...(kind === "unmetered" ? { projects: 0, prompts: 0 } : {}),
    });
    orgs[kind] = (
      await api<{ id: string }>("POST", "/v2/orgs", { name: `Org ${kind}`, parentWorkspaceId })
    ).id;
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await serve?.stop();
  await sim?.close();
  await db?.destroy();
});

async function overview(orgId: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const problems = watchForProblems(page);
  await page.goto(`${serve.url}/console/orgs`);
  await signIn(page, token);
  await page.waitForURL("**/console/orgs", WAIT);
  await page.goto(`${serve.url}/console/orgs/${orgId}`);
  return { page, problems };
}

describe("each parent's own metering in the console", () => {
  it("an unmetered org says allocation is not needed, with its metering and when it was read", async () => {
    const view = await api<{ allocation: string; metering: { state: string; asOf: string } }>(
      "GET",
      `/v2/orgs/${orgs.unmetered}/serenity/resources`,
    );
    expect(view).toMatchObject({ allocation: "notNeeded", metering: { state: "unmetered" } });
    const { page, problems } = await overview(orgs.unmetered);
    await checkPage(page, "overview-unmetered", () =>
      page.waitForSelector("[data-field=allocation-not-needed]", WAIT),
    );
    expect(await page.textContent("[data-field=allocation-not-needed]")).toContain(
      "Allocation is not needed",
    );
    expect(await page.locator(".pool-bars").count()).toBe(0);
    expect(await page.textContent("[data-field=metering]")).toMatch(/AI metering\s*unmetered\s*as of/);
    expect(problems).toEqual([]);
  });

  it("a metered org draws its pool and says it meters", async () => {
    const { page, problems } = await overview(orgs.metered);
    await checkPage(page, "overview-metered", () => page.waitForSelector(".pool-bars", WAIT));
    expect(await page.textContent("[data-field=metering]")).toMatch(/AI metering\s*metered\s*as of/);
    expect(await page.locator("[data-field=allocation-not-needed]").count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
