import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  checkPage,
  type ConsoleWorld,
  openConsoleWorld,
  signIn,
  WAIT,
  watchForProblems,
} from "../support/consoleWorld.ts";

/**
 * The console's generation parts (spec/console.md §3 page 3, spec/generation.md §5 and §8) in
 * headless Chromium against `serenity start`: preview a market's generated prompts, choose and
 * accept them (written through the bulk prompt API), and every page state passes axe-core and
 * fits a 390-wide phone. Every wait is for an observed state; screenshots go to
 * .test-results/console/.
 */

let world: ConsoleWorld;
let context: BrowserContext;
let page: Page;
let problems: string[];
let orgId = "";
let brandId = "";
let simulatorUrl = "";

interface PromptItem {
  text: string;
  tags: { dimension: string | null; name: string }[];
}

beforeAll(async () => {
  world = await openConsoleWorld({ SERENITY_SIMULATOR_CONTROLS: "true" });
  orgId = world.server.demoOrgId;
  const brand = await world.api<{ id: string }>(`/v2/orgs/${orgId}/brands`, {
    method: "POST",
    body: { name: "Lumiere", domain: "lumiere.example", semrushMarket: { market: "FR", languageCode: "fr" } },
  });
  brandId = brand.id;
  simulatorUrl = /built-in simulator at (http:\/\/\S+)/.exec(world.server.output())![1]!;
  context = await world.browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  problems = watchForProblems(page);
  await page.goto(`${world.server.url}/console/orgs/${orgId}/brands/${brandId}`);
  await signIn(page, world.server.token);
  await page.waitForSelector("main table a:has-text('FR · fr')", WAIT);
});
afterAll(async () => {
  await context?.close();
  await world?.close();
});

const marketRow = (name: string) => page.locator("main table tbody tr", { hasText: name });
const generationOf = (name: string) => marketRow(name).locator("[data-field=generation]");

/** A fault rule of the demo's simulator (its controls are on for this suite). */
async function simulatorFaults(rule?: unknown): Promise<void> {
  const response = await fetch(`${simulatorUrl}/__sim/faults`, {
    method: rule === undefined ? "DELETE" : "POST",
    headers: rule === undefined ? {} : { "content-type": "application/json" },
    body: rule === undefined ? undefined : JSON.stringify(rule),
  });
  expect(response.ok).toBe(true);
}

/** Adds a market with generation through the form, as a person would; resolves with the page's note. */
async function addMarketWithGeneration(country: string, language: string): Promise<string> {
  const form = page.locator("details", { has: page.locator("summary", { hasText: "Add a market" }) });
  if (!(await form.evaluate((details) => (details as HTMLDetailsElement).open))) {
    await form.locator("summary").click();
  }
  await page.fill("#market-market", country);
  await page.fill("#market-language", language);
  await page.check("#market-generate");
  await page.getByRole("button", { name: "Add market" }).click();
  const note = page.locator("main [role=status].note");
  await expect.poll(() => note.textContent(), WAIT).toContain("Market created.");
  return (await note.textContent()) ?? "";
}

describe("previewing generated prompts", () => {
  it("previews a market's prompts, writes nothing, and accepts the chosen ones", async () => {
    await page.getByRole("button", { name: "Preview prompts for FR · fr" }).click();
    await page.fill("#preview-count", "6");
    await page.getByRole("button", { name: "Generate preview" }).click();
    const items = page.locator(".preview-prompts li");
    await expect.poll(() => items.count(), WAIT).toBe(6);
    expect(await page.textContent("[data-field=preview-summary]")).toContain("6 kept of");
    // A preview writes nothing: the market still has no prompts.
    const before = await world.api<{ total: number }>(
      `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts?geoTargetId=2250&languageCode=fr&includeDrafts=true`,
    );
    expect(before.total).toBe(0);
    await checkPage(page, "brand-preview", () => items.first().waitFor(WAIT));

    // Leave the first one out, accept the other five after confirming.
    const left = (await page.locator("label[for=preview-0]").innerText()).split("\n")[0]!.trim();
    await page.uncheck("#preview-0");
    await page.getByRole("button", { name: "Accept 5 prompts" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Write them" }).click();
    await expect
      .poll(() => page.locator("main [role=status].note").textContent(), WAIT)
      .toContain("5 created");
    expect(await page.locator(".preview").count()).toBe(0);

    const written = await world.api<{ items: PromptItem[]; total: number }>(
      `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts?geoTargetId=2250&languageCode=fr&includeDrafts=true`,
    );
    expect(written.total).toBe(5);
    expect(written.items.map((item) => item.text)).not.toContain(left);
    for (const item of written.items) {
      const dimensions = item.tags.map((tag) => tag.dimension);
      expect(dimensions).toContain("category");
      expect(dimensions).toContain("type");
    }
    // The market's prompt count (the table's fifth column) follows.
    await expect.poll(() => marketRow("FR · fr").locator("td").nth(4).textContent(), WAIT).toBe("5");
    expect(problems).toEqual([]);
  });

  it("shows a market without a generation job as such", async () => {
    expect(await marketRow("FR · fr").locator("[data-field=generation], .muted").first().textContent()).toBe(
      "none",
    );
  });
});

describe("a market's prompt generation", () => {
  it("creates a market with generation through the form and shows it generating, then live", async () => {
    const note = await addMarketWithGeneration("DE", "de");
    expect(note).toContain("Prompt generation started (job");
    await marketRow("DE · de").waitFor(WAIT);
    await expect.poll(() => generationOf("DE · de").getAttribute("data-state"), WAIT).toBe("live");
    const written = await world.api<{ total: number }>(
      `/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts?geoTargetId=2276&languageCode=de&includeDrafts=true`,
    );
    expect(written.total).toBeGreaterThanOrEqual(5);
  });

  it("shows a generation that needs a sign-in, and resumes it with the Re-authenticate button", async () => {
    // Every prompt write answers 401, as for an expired upstream session: the job stops NEEDS_REAUTH.
    await simulatorFaults({
      match: { method: "POST", pathPattern: "/aio/prompts$" },
      action: { status: 401 },
    });
    await addMarketWithGeneration("IT", "it");
    const state = generationOf("IT · it");
    await expect.poll(() => state.getAttribute("data-state"), WAIT).toBe("needs-sign-in");
    expect(await state.textContent()).toContain("needs sign-in");
    const button = state.getByRole("button", { name: "Re-authenticate" });
    expect(await button.isVisible()).toBe(true);
    // The held state of another market in the same picture: no builtin templates for Japanese.
    await addMarketWithGeneration("JP", "ja");
    await expect.poll(() => generationOf("JP · ja").getAttribute("data-state"), WAIT).toBe("held");
    expect(await generationOf("JP · ja").locator("[data-field=generation-reason]").textContent()).not.toBe(
      "",
    );
    await checkPage(page, "brand-generation", () => button.waitFor(WAIT));

    // The upstream accepts writes again; re-authenticating resumes the same job to live.
    await simulatorFaults();
    const jobs = await world.api<{ items: { jobId: string; market: { geoTargetId: number } | null }[] }>(
      `/v2/orgs/${orgId}/serenity/jobs?brandId=${brandId}&type=generateSemrushMarket`,
    );
    const italian = jobs.items.find((job) => job.market?.geoTargetId === 2380)!;
    await button.click();
    await expect
      .poll(() => page.locator("main [role=status].note").textContent(), WAIT)
      .toContain("Signed in again");
    await expect.poll(() => state.getAttribute("data-state"), WAIT).toBe("live");
    const polled = await world.api<{ jobId: string; status: string; result: { promptCount: number } }>(
      `/v2/orgs/${orgId}/brands/${brandId}/serenity/markets/generation/jobs/${italian.jobId}`,
    );
    expect(polled).toMatchObject({ jobId: italian.jobId, status: "COMPLETED" });
    expect(polled.result.promptCount).toBeGreaterThanOrEqual(5);
    expect(problems).toEqual([]);
  });
});
