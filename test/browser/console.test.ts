import path from "node:path";

import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  checkPage,
  type ConsoleWorld,
  openConsoleWorld,
  SCREENSHOTS,
  signIn,
  WAIT,
  watchForProblems,
} from "../support/consoleWorld.ts";

/**
 * The operator console in headless Chromium against `serenity start` (spec/console.md §4): sign in
 * with a minted token, the demo pool's numbers equal the API's, a brand with a market created
 * through the UI becomes ready and its top-up shows in the ledger, jobs and a job's timeline, a
 * market's prompts, a foreign org is "not found", a refused token returns to sign-in — and every
 * page passes axe-core and fits a 1280×800 window and a 390-wide phone. Every wait is for an
 * observed state; screenshots go to .test-results/console/.
 */

interface PoolDim {
  used: number;
  drafted: number;
  total: number;
  free: number;
}
interface PoolView {
  pool: { projects: PoolDim; prompts: PoolDim };
  brands: { brandId: string; projects: PoolDim | null; prompts: PoolDim | null }[];
}

let world: ConsoleWorld;
let context: BrowserContext;
let page: Page;
let problems: string[];
const requested: string[] = [];
let brandUrl = "";

beforeAll(async () => {
  world = await openConsoleWorld();
  context = await world.browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  problems = watchForProblems(page);
  page.on("request", (request) => requested.push(request.url()));
});
afterAll(async () => {
  await context?.close();
  await world?.close();
});

const main = () => page.locator("main");
const heading = () => page.locator("main h1");

describe("the operator console", () => {
  it("asks for a token, and refuses a bad one with a sentence", async () => {
    await page.goto(`${world.server.url}/`);
    await checkPage(page, "sign-in", () => page.waitForSelector("#token", WAIT));
    await signIn(page, "not-a-token");
    await expect.poll(() => page.locator("[role=alert]").textContent(), WAIT).toContain("was not accepted");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("signs in with the token `start` printed and lists the demo org", async () => {
    await signIn(page, world.server.token);
    await page.waitForURL("**/console/orgs", WAIT);
    await checkPage(page, "orgs", () => page.waitForSelector("main table a:text-is('Demo')", WAIT));
  });

  it("shows the demo org's pool with the numbers the API gives", async () => {
    await page.click("main table a:text-is('Demo')");
    await checkPage(page, "overview", () => page.waitForSelector(".pool-bars [data-field=free]", WAIT));
    const shown = async (dimension: string, field: string) =>
      Number(
        (await page.textContent(`[data-dimension=${dimension}] [data-field=${field}]`))?.replace(/\D/g, ""),
      );
    // The page and this read may straddle the pool view's few-second cache: wait until they agree.
    await expect
      .poll(async () => {
        const view = await world.api<PoolView>(`/v2/orgs/${world.server.demoOrgId}/serenity/resources`);
        const fromApi = (["projects", "prompts"] as const).map((name) => [
          view.pool[name].free,
          view.pool[name].total,
          view.pool[name].used + view.brands.reduce((sum, brand) => sum + (brand[name]?.used ?? 0), 0),
        ]);
        const onPage = [];
        for (const name of ["projects", "prompts"]) {
          onPage.push([
            await shown(name, "free"),
            await shown(name, "pool-total"),
            await shown(name, "used"),
          ]);
        }
        return JSON.stringify(onPage) === JSON.stringify(fromApi)
          ? "equal"
          : JSON.stringify({ onPage, fromApi });
      }, WAIT)
      .toBe("equal");
  });

  it("creates a brand with a market through the UI and follows its provisioning to ready", async () => {
    await page.click("summary:text('New brand')");
    await page.fill("#brand-name", "Lumiere");
    await page.fill("#brand-domain", "lumiere.example");
    await page.fill("#brand-market", "US");
    await page.fill("#brand-language", "en");
    expect(await page.isChecked("#brand-async")).toBe(true);
    await page.click("button:text('Create brand')");
    await page.waitForURL(/\/console\/orgs\/[0-9a-f-]+\/brands\/[0-9a-f-]+$/, WAIT);
    brandUrl = page.url();
    await page.waitForSelector("dd[data-field=provisioning] .badge-ready", WAIT);
    await checkPage(page, "brand", () => page.waitForSelector("main table a:has-text('US · en')", WAIT));
    const brandId = brandUrl.split("/").at(-1)!;
    const brand = await world.api<{ provisioning: { status: string } }>(
      `/v2/orgs/${world.server.demoOrgId}/brands/${brandId}`,
    );
    expect(brand.provisioning.status).toBe("ready");
  });

  it("shows the ledger entry of the brand's top-up on the overview", async () => {
    const brandId = brandUrl.split("/").at(-1)!;
    const ledger = await world.api<{ items: { brandId: string; reason: string; outcome: string }[] }>(
      `/v2/orgs/${world.server.demoOrgId}/serenity/allocation-ledger?brandId=${brandId}`,
    );
    expect(ledger.items.some((entry) => entry.reason === "topUp" && entry.outcome === "applied")).toBe(true);
    await page.click("header nav a:text('Overview')");
    const row = page.locator("table tr", { hasText: "Lumiere" }).filter({ hasText: "topUp" });
    await row.first().waitFor(WAIT);
    expect(await row.first().textContent()).toContain("applied");
    // The brand's allocation bar is in the brands table, and the pool has moved: a line over time.
    await page.locator("table tr", { hasText: "Lumiere" }).locator(".allocation").first().waitFor(WAIT);
    await checkPage(page, "overview-live", () => page.waitForSelector(".chart-box canvas", WAIT));
  });

  it("lists the org's jobs and shows the provisioning chain as a timeline", async () => {
    await page.click("header nav a:text('Jobs')");
    const row = page.locator("main table tr", { hasText: "provisionWorkspace" });
    await checkPage(page, "jobs", () => row.filter({ hasText: "COMPLETED" }).first().waitFor(WAIT));
    // The filters are in the URL and narrow the list.
    await page.selectOption("#filter-status", "FAILED");
    await page.waitForURL(/status=FAILED/, WAIT);
    await page.getByText("No jobs.").waitFor(WAIT);
    await page.selectOption("#filter-status", "");
    await page.selectOption("#filter-type", "provisionWorkspace");
    await page.waitForURL(/type=provisionWorkspace/, WAIT);
    await row.filter({ hasText: "COMPLETED" }).first().waitFor(WAIT);
    await row.first().locator("a").click();
    await checkPage(page, "job", () => page.waitForSelector(".timeline li", WAIT));
    const jobId = page.url().split("/").at(-1)!;
    const timeline = await world.api<{ hops: { via: string }[] }>(
      `/v2/orgs/${world.server.demoOrgId}/serenity/jobs/${jobId}/timeline`,
    );
    await expect.poll(() => page.locator(".timeline li").count(), WAIT).toBe(timeline.hops.length);
    expect(await page.locator(".timeline li").first().textContent()).toContain("started");
    expect(await page.locator(".timeline li").last().textContent()).toContain("chained");
  });

  it("shows a market's prompts with their tags, filters by tag and deletes one after confirmation", async () => {
    await page.goto(brandUrl);
    await page.click("main table a:has-text('US · en')");
    await page.waitForSelector("#tag-filter", WAIT);
    await page.click("summary:text('Add prompts')");
    await page.fill(
      "#prompt-texts",
      "What is the best moisturiser for dry skin?\nIs Lumiere good for winter?",
    );
    await page.click("form button:text('Add')");
    const rows = page.locator("main table tbody tr");
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    await checkPage(page, "market", () => rows.first().waitFor(WAIT));

    await page.selectOption("#tag-filter", "type: branded");
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    expect(await rows.first().textContent()).toContain("Is Lumiere good for winter?");

    await rows.first().getByRole("button", { name: "Delete" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Delete" }).click();
    await page.selectOption("#tag-filter", "");
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    expect(await rows.first().textContent()).toContain("dry skin");

    // Issue 36: search and sort by the API, an inline edit (the id kept), a bulk delete. (The
    // "Add prompts" form is still open.)
    await page.fill("#prompt-texts", "Which serum suits oily skin?");
    await page.click("form button:text('Add')");
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    await page.fill("#prompt-search", "SERUM");
    await page.press("#prompt-search", "Enter");
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    await page.fill("#prompt-search", "");
    await page.press("#prompt-search", "Enter");
    await page.selectOption("#prompt-sort", "text:desc");
    await expect.poll(async () => (await rows.first().textContent()) ?? "", WAIT).toContain("Which serum");
    await rows.first().getByRole("button", { name: "Edit" }).click();
    await page.fill("main table input.inline-edit", "Which serum suits combination skin?");
    await checkPage(page, "market (editing)", () =>
      page.locator("main table input.inline-edit").waitFor(WAIT),
    );
    await page.click("main table button:text('Save')");
    await expect
      .poll(async () => (await rows.first().textContent()) ?? "", WAIT)
      .toContain("combination skin");
    await rows.first().getByRole("checkbox").check();
    await page.locator("main .filters").getByRole("button", { name: "Delete selected (1)" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Delete selected (1)" }).click();
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    expect(await rows.first().textContent()).toContain("dry skin");

    // The market's categories as a tree: add, nest, rename, delete.
    const tree = page.locator(".category-tree li");
    await page.fill("#category-name", "skin care");
    await page.click("button:text('Add category')");
    await expect.poll(() => tree.count(), WAIT).toBe(1);
    await page.fill("#category-name", "serums");
    await page.selectOption("#category-parent", { label: "skin care" });
    await page.click("button:text('Add category')");
    await expect.poll(() => page.locator(".category-tree .category-tree li").count(), WAIT).toBe(1);
    await page.selectOption("#category-target", { label: "· serums" });
    await page.fill("#category-new-name", "face serums");
    await page.click("button:text('Rename')");
    await expect
      .poll(async () => (await page.locator(".category-tree").first().textContent()) ?? "", WAIT)
      .toContain("face serums");
    await checkPage(page, "market (categories)", () => tree.first().waitFor(WAIT));
    await page.getByRole("button", { name: "Delete face serums" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Delete face serums" }).click();
    await expect.poll(() => tree.count(), WAIT).toBe(1);

    // Move (re-parent) one to the top level, then delete a category in use, its prompts moved to
    // another first.
    await page.fill("#category-name", "serums");
    await page.selectOption("#category-parent", { label: "skin care" });
    await page.click("button:text('Add category')");
    await expect.poll(() => page.locator(".category-tree .category-tree li").count(), WAIT).toBe(1);
    await page.selectOption("#category-move", { label: "· serums" });
    await page.selectOption("#category-move-under", "");
    await page.click("button:text('Move')");
    await expect.poll(() => page.locator(".category-tree .category-tree li").count(), WAIT).toBe(0);
    await expect.poll(() => tree.count(), WAIT).toBe(2);
    const [, orgId, brandId] = /orgs\/([^/]+)\/brands\/([^/]+)/.exec(brandUrl)!;
    await world.api(`/v2/orgs/${orgId}/brands/${brandId}/serenity/prompts`, {
      method: "POST",
      body: {
        items: [
          {
            text: "Which cream for skin care?",
            geoTargetId: 2840,
            languageCode: "en",
            category: "skin care",
          },
        ],
      },
    });
    await page.reload();
    await expect.poll(async () => (await tree.first().textContent()) ?? "", WAIT).toContain("(1 prompts)");
    await page.selectOption("#category-delete", { label: "skin care" });
    await page.selectOption("#category-reassign", { label: "serums" });
    await checkPage(page, "market (category delete)", () => page.locator("#category-reassign").waitFor(WAIT));
    await page.locator("main form").getByRole("button", { name: "Delete category" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Delete category" }).click();
    await expect.poll(() => tree.count(), WAIT).toBe(1);
    await expect.poll(async () => (await tree.first().textContent()) ?? "", WAIT).toContain("serums");
    expect(await tree.first().textContent()).toContain("(1 prompts)");

    // The overview now tells the whole story (the README's picture): two top-ups, a line over time.
    await page.click("header nav a:text('Overview')");
    await page.waitForSelector(".chart-box canvas", WAIT);
    await expect
      .poll(() => page.locator("table tr", { hasText: "topUp" }).count(), WAIT)
      .toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: path.join(SCREENSHOTS, "overview-readme.png"), fullPage: true });
  });

  it("edits the brand's identity; its market follows through the propagation job the page lists", async () => {
    const [, orgId, brandId] = /orgs\/([^/]+)\/brands\/([^/]+)/.exec(brandUrl)!;
    await page.goto(brandUrl);
    await page.click("summary:text('Edit identity…')");
    await page.fill("#identity-aliases", "Lumière\nLMR");
    await page.fill("#identity-competitors", "Eclat, eclat.example");
    await page.fill("#identity-urls", "owned https://lumiere.example/\nbogus https://x.example/");
    await page.click("button:text('Save identity')");
    // A line the form cannot read is named, and nothing is sent.
    expect(await page.textContent("form[aria-labelledby=identity-title] [role=alert]")).toContain(
      "URL “bogus https://x.example/”",
    );
    await page.fill("#identity-urls", "owned https://lumiere.example/");
    await page.click("button:text('Save identity')");
    await page.waitForSelector("text=Every market follows through the propagation job", WAIT);
    await checkPage(page, "brand-identity", () =>
      page.waitForSelector("dd[data-field=aliases]:has-text('Lumière, LMR')", WAIT),
    );
    const brand = await world.api<{ aliases: string[]; competitors: { name: string; domain: string }[] }>(
      `/v2/orgs/${orgId}/brands/${brandId}`,
    );
    expect(brand.aliases).toEqual(["Lumière", "LMR"]);
    expect(brand.competitors).toEqual([{ name: "Eclat", domain: "eclat.example", aliases: [] }]);
    // The propagation job is in the brand's job list, and runs to its end.
    await page.waitForSelector("main table tr:has-text('propagateBrandIdentity')", WAIT);
    await expect
      .poll(async () => {
        const jobs = await world.api<{ items: { type: string; status: string }[] }>(
          `/v2/orgs/${orgId}/serenity/jobs?brandId=${brandId}&type=propagateBrandIdentity`,
        );
        return jobs.items.map((job) => job.status);
      }, WAIT)
      .toEqual(["COMPLETED"]);
  });

  it("deactivates the brand after confirmation", async () => {
    await page.goto(brandUrl);
    await page.locator("main .actions").getByRole("button", { name: "Deactivate" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Deactivate" }).click();
    await page.waitForSelector("dl .badge-pending", WAIT);
  });

  it("deletes the brand after confirmation: back to the org, the brand answers 404", async () => {
    const [, orgId, brandId] = /orgs\/([^/]+)\/brands\/([^/]+)/.exec(brandUrl)!;
    await page.goto(brandUrl);
    await page.locator("main .actions").getByRole("button", { name: "Delete brand" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Delete brand" }).click();
    await page.waitForURL(`**/console/orgs/${orgId}`, WAIT);
    await expect
      .poll(async () => {
        const response = await fetch(`${world.server.url}/v2/orgs/${orgId}/brands/${brandId}`, {
          headers: { authorization: `Bearer ${world.server.token}` },
        });
        return response.status;
      }, WAIT)
      .toBe(404);
  });

  it("returns to sign-in with a sentence when the token stops being accepted", async () => {
    await page.goto(`${world.server.url}/console/orgs`);
    await page.waitForSelector("main table", WAIT);
    // The token is revoked under the page's feet: the next refresh gets a 401.
    await page.evaluate(() => sessionStorage.setItem("serenity.console.token", "revoked.token.value"));
    await page.waitForSelector("#token", WAIT);
    expect(await main().textContent()).toContain("Your session ended");
  });

  it("answers a foreign org's URL with “not found” for a member of another org", async () => {
    const foreign = await world.api<{ id: string }>("/v2/orgs", {
      method: "POST",
      body: { name: "Foreign" },
    });
    await signIn(page, world.memberToken);
    await page.waitForSelector("main table", WAIT);
    expect(await page.locator("main table tbody tr").count()).toBe(1);
    await page.goto(`${world.server.url}/console/orgs/${foreign.id}`);
    await signInIfAsked(world.memberToken);
    await checkPage(page, "not-found", async () => {
      await expect.poll(() => heading().textContent(), WAIT).toBe("Not found");
    });
    expect(await main().textContent()).toContain("does not exist, or your token does not give access to it");
  });

  it("never put the token in a URL, a cookie, localStorage or a log line, and broke no page rule", async () => {
    // The server's log lines (JSON, request logs included at this level), not the banner that printed it.
    const logLines = world.server
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"));
    expect(logLines.length).toBeGreaterThan(0);
    for (const token of [world.server.token, world.memberToken]) {
      expect(requested.filter((url) => url.includes(token))).toEqual([]);
      expect(logLines.filter((line) => line.includes(token.split(".")[2]!))).toEqual([]);
    }
    expect(requested.some((url) => url.includes("/v2/orgs"))).toBe(true);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(requested.every((url) => url.startsWith(world.server.url))).toBe(true);
    expect(problems).toEqual([]);
  });
});

/** A full page load keeps the session (sessionStorage survives it); sign in again only if asked. */
async function signInIfAsked(token: string): Promise<void> {
  await page.waitForSelector("#token, main h1", WAIT);
  if (await page.locator("#token").count()) await signIn(page, token);
}

/** The API calls a page made (by path) and how many of them have settled (test/browser only). */
interface ApiCalls {
  started: Record<string, number>;
  settled: number;
}

describe("live refresh", () => {
  it("refreshes each data set once every 5 s while visible, and stops while hidden", async () => {
    const clocked = await world.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const live = await clocked.newPage();
      const liveProblems = watchForProblems(live);
      // The page counts its own API calls: started, and settled once the body is read (the last
      // step of a call before the refresh ends). Read in the page, the counts are exact at the moment
      // of reading, whatever the browser's events still have in transit.
      await live.addInitScript(() => {
        const counts: ApiCalls = { started: {}, settled: 0 };
        (window as unknown as { apiCalls: ApiCalls }).apiCalls = counts;
        const fetchOf = window.fetch.bind(window);
        window.fetch = async (input, init) => {
          const url = new URL(input instanceof Request ? input.url : String(input), location.href);
          if (!url.pathname.startsWith("/v2/")) return fetchOf(input, init);
          counts.started[url.pathname] = (counts.started[url.pathname] ?? 0) + 1;
          const response = await fetchOf(input, init).catch((error: unknown) => {
            counts.settled += 1;
            throw error;
          });
          if (response.status === 204) {
            counts.settled += 1;
            return response;
          }
          const json = response.json.bind(response);
          response.json = () =>
            json().finally(() => {
              counts.settled += 1;
            });
          return response;
        };
      });
      await live.clock.install();
      await live.goto(`${world.server.url}/console/orgs/${world.server.demoOrgId}`);
      await signIn(live, world.server.token);
      await live.waitForSelector(".pool-bars", WAIT);
      // Until now the page's time ran with the wall's (sign-in needs its timers). From here it moves
      // only when the test moves it, so a slow machine cannot slip an extra refresh in.
      await live.clock.pauseAt((await live.evaluate(() => Date.now())) + 1_000);
      const dataSets = [
        "/serenity/resources",
        "/serenity/pool-history",
        "/brands",
        "/serenity/allocation-ledger",
      ];
      /** Each data set's calls so far, once every call started has settled (null while one is out). */
      const settledCalls = () =>
        live.evaluate(
          (paths) => {
            const { started, settled } = (window as unknown as { apiCalls: ApiCalls }).apiCalls;
            const total = Object.values(started).reduce((sum, count) => sum + count, 0);
            return total === settled ? paths.map((path) => started[path] ?? 0) : null;
          },
          dataSets.map((suffix) => `/v2/orgs/${world.server.demoOrgId}${suffix}`),
        );
      const settledTogether = async () => {
        let counts: number[] | null = null;
        await expect
          .poll(async () => {
            counts = await settledCalls();
            return counts !== null && counts.every((count) => count === counts![0]);
          }, WAIT)
          .toBe(true);
        return counts![0]!;
      };
      const loads = await settledTogether();
      expect(loads).toBeGreaterThanOrEqual(1);

      await live.clock.runFor(5_000);
      await expect.poll(settledCalls, WAIT).toEqual(dataSets.map(() => loads + 1));

      await live.evaluate(() => {
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
        document.dispatchEvent(new Event("visibilitychange"));
      });
      await live.clock.runFor(60_000);
      expect(await settledCalls()).toEqual(dataSets.map(() => loads + 1));

      await live.evaluate(() => {
        Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "visible" });
        document.dispatchEvent(new Event("visibilitychange"));
      });
      await expect.poll(settledCalls, WAIT).toEqual(dataSets.map(() => loads + 2));
      expect(liveProblems).toEqual([]);
    } finally {
      await clocked.close();
    }
  });
});
