import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";

import { launchChromium } from "./chromium.ts";
import { runCli } from "./cli.ts";
import { type StartedSerenity, startSerenity } from "./serenityProcess.ts";

/**
 * What the console's browser suite shares: `serenity start` (the demo, as a newcomer runs it),
 * headless Chromium (Debian's, as for /docs), tokens, and the checks every page gets — axe-core,
 * no horizontal scrolling at 1280×800 and 390 wide, screenshots under the test output.
 */

/** Screenshots land here (gitignored with the rest of the test output). */
export const SCREENSHOTS = path.resolve(".test-results", "console");
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** Generous: the machine is shared, and provisioning runs through the job worker. */
export const WAIT = { timeout: 60_000 };

const AXE_SOURCE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

export interface ConsoleWorld {
  server: StartedSerenity;
  browser: Browser;
  dataDir: string;
  /** A token for a non-admin member of the demo org only. */
  memberToken: string;
  api<T = unknown>(
    pathAndQuery: string,
    init?: { method?: string; body?: unknown; token?: string },
  ): Promise<T>;
  close(): Promise<void>;
}

/** @param env extra environment of `serenity start` (e.g. simulator controls for fault rules). */
export async function openConsoleWorld(env: Record<string, string> = {}): Promise<ConsoleWorld> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-console-"));
  await fs.chmod(dataDir, 0o755);
  await fs.mkdir(SCREENSHOTS, { recursive: true });
  // Request logs on, so the suite can check that no log line carries the token.
  const server = await startSerenity(dataDir, { LOG_LEVEL: "info", ...env });
  const minted = await runCli(["token", "--sub", "member", "--org", server.demoOrgId], {
    SERENITY_DATA_DIR: dataDir,
  });
  expect(minted.code, minted.stderr).toBe(0);
  const browser = await launchChromium();
  return {
    server,
    browser,
    dataDir,
    memberToken: minted.stdout.trim(),
    async api<T>(pathAndQuery: string, init: { method?: string; body?: unknown; token?: string } = {}) {
      const response = await fetch(`${server.url}${pathAndQuery}`, {
        method: init.method ?? "GET",
        headers: {
          authorization: `Bearer ${init.token ?? server.token}`,
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      expect(response.status, `${init.method ?? "GET"} ${pathAndQuery}`).toBeLessThan(300);
      return (response.status === 204 ? null : await response.json()) as T;
    },
    async close() {
      await browser?.close();
      await server?.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Failures a page must never show: script errors and Content-Security-Policy refusals. */
export function watchForProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return problems;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown }[];
}

/** axe-core, injected through the DevTools protocol (the page's CSP rightly refuses script tags). */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  const source = await fs.readFile(AXE_SOURCE, "utf8");
  await page.evaluate(`${source}\n;void 0`);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    return (await axe.run(document)).violations;
  });
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    );
}

async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * Every page gets the same checks: zero serious or critical axe violations, no horizontal page
 * scrolling on a 1280×800 window and on a 390-wide phone, and a screenshot of each.
 */
export async function checkPage(page: Page, name: string, ready: () => Promise<unknown>): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await ready();
  expect(await seriousAccessibilityViolations(page), `${name}: axe`).toEqual([]);
  expect(await horizontalOverflow(page), `${name}: horizontal overflow at 1280`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await ready();
  expect(await horizontalOverflow(page), `${name}: horizontal overflow at 390`).toBeLessThanOrEqual(0);
  expect(await seriousAccessibilityViolations(page), `${name}: axe at 390`).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

/** Signs in through the form, as a person would. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.waitForSelector("#token", WAIT);
  await page.fill("#token", token);
  await page.click("form button[type=submit]");
}
