import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { launchChromium } from "../support/chromium.ts";
import { type StartedSerenity, startSerenity } from "../support/serenityProcess.ts";

/** The one page we serve, `/docs` (Swagger UI), rendered by a real browser against `serenity start`. */

let dataDir: string;
let server: StartedSerenity;
let browser: Browser;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-browser-"));
  server = await startSerenity(dataDir);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe("/docs in headless Chromium", () => {
  it("renders the API reference with its operations and the error registry, without page errors", async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    const response = await page.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    await page.waitForSelector(".opblock", { timeout: 30_000 });
    const title = await page.textContent(".info .title");
    expect(title).toContain("Serenity API");
    const paths = await page.$$eval(".opblock-summary-path", (nodes) =>
      nodes.map((node) => node.textContent ?? ""),
    );
    expect(paths.some((p) => p.includes("/v2/orgs/{orgId}/brands"))).toBe(true);
    expect(paths.some((p) => p.includes("/serenity/prompts"))).toBe(true);
    expect(await page.textContent(".info")).toContain("orgPoolExhausted");
    await page.screenshot({ path: path.join(dataDir, "docs.png"), fullPage: false });
    expect(pageErrors).toEqual([]);
  });
});
