import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { signDevToken } from "../../src/auth/tokenVerifier.ts";
import { launchChromium } from "../support/chromium.ts";
import { checkPage, signIn, WAIT, watchForProblems } from "../support/consoleWorld.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { AUTH_SECRET, type ServeProcess, startServe } from "../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator } from "../support/simulator.ts";

/**
 * The console shows whether Semrush answers, as the API process last probed it: two real `serve`
 * processes on one database, one whose Semrush origin refuses every connection, one on a live
 * simulator. The first shows "does not answer" in the header and a note above the page; the second
 * shows "answers" and no note. Both pass axe and fit a phone.
 */
let db: TestDatabase;
let sim: TestSimulator;
let down: ServeProcess;
let up: ServeProcess;
let browser: Browser;
let token: string;

beforeAll(async () => {
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  // Port 9 on loopback (discard): nothing listens there. The probe sends the operator's upstream
  // bearer (every call to Semrush carries one; without one it probes nothing and says "unknown").
  const env = { SERENITY_UPSTREAM_TOKEN: "operator-upstream-token" };
  [down, up] = await Promise.all([
    startServe({ databaseUrl: db.url, simulatorUrl: "http://127.0.0.1:9", env }),
    startServe({ databaseUrl: db.url, simulatorUrl: sim.url, env }),
  ]);
  browser = await launchChromium();
  token = await signDevToken(AUTH_SECRET, { sub: "operator", admin: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([down?.stop(), up?.stop()]);
  await sim?.close();
  await db?.destroy();
});

async function signedIn(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const problems = watchForProblems(page);
  await page.goto(`${url}/console/orgs`);
  await signIn(page, token);
  await page.waitForURL("**/console/orgs", WAIT);
  return { page, problems };
}

describe("upstream health in the console", () => {
  it("says Semrush does not answer, in the header and above the page", async () => {
    const { page, problems } = await signedIn(down.url);
    await checkPage(page, "upstream-down", () => page.waitForSelector("[data-upstream=unreachable]", WAIT));
    expect(await page.textContent("[data-upstream]")).toContain("Semrush does not answer");
    const note = page.locator(".upstream-note");
    expect(await note.getAttribute("role")).toBe("status");
    expect(await note.textContent()).toContain("changes that need Semrush fail (serenityUpstreamError)");
    expect(problems).toEqual([]);
  });

  it("says Semrush answers, with no note, where it does", async () => {
    const { page, problems } = await signedIn(up.url);
    await checkPage(page, "upstream-up", () => page.waitForSelector("[data-upstream=reachable]", WAIT));
    expect(await page.textContent("[data-upstream]")).toContain("Semrush answers");
    expect(await page.locator(".upstream-note").count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
