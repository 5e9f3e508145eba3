/**
 * The operator console's load and refresh cost, in headless Chromium (Debian's `chromium`).
 *
 * Part 1, on the demo (`serenity start` as a newcomer runs it): bytes transferred on a cold first
 * load (JS and CSS compressed, as sent), and the time from navigation to the overview's pool bars
 * on screen; then the same on a warm reload (assets cached as immutable).
 *
 * Part 2, side by side on one in-process API: a demo-sized org (1 brand, 10 ledger rows) and a big
 * one (50 brands with sub-workspaces, 1,000 ledger rows). For each: time to the overview fully
 * rendered, API calls per refresh (and per data set), JSON bytes per refresh, and the page's main
 * thread time per refresh (Chrome's TaskDuration over several real 5 s refreshes).
 *
 *   npx tsx bench/console-load.ts [--loads 5] [--refreshes 3]
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { type Browser, chromium, type Page } from "playwright-core";

import { loadConsoleBundle } from "../src/api/console/consoleBundle.ts";
import { insertLedgerEntry } from "../src/db/allocation/insertLedgerEntry.ts";
import { recordSyncSubWorkspace } from "../src/db/brands/recordSyncSubWorkspace.ts";
import { startSerenity } from "../test/support/serenityProcess.ts";
import {
  inProcessApi,
  median,
  printTable,
  scratchDatabase,
  simControl,
  simulatorProcess,
} from "./allocation-support.ts";

const { values } = parseArgs({
  options: { loads: { type: "string", default: "5" }, refreshes: { type: "string", default: "3" } },
});
const LOADS = Number(values.loads);
const REFRESHES = Number(values.refreshes);
const TOKEN_KEY = "serenity.console.token";
/** The ledger section rendered its rows or its "no transfers yet" sentence: every data set is on screen. */
const LEDGER_SHOWN =
  "section[aria-labelledby=ledger-title] table, section[aria-labelledby=ledger-title] p.muted";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"];

/** Records, inside the page, when a selector first matches (no polling from outside). */
function markWhen(name: string, selector: string, minimum = 1) {
  return `(() => {
    const check = () => {
      if (document.querySelectorAll(${JSON.stringify(selector)}).length >= ${minimum}) {
        window.__marks = Object.assign(window.__marks || {}, { ${JSON.stringify(name)}: performance.now() });
        return true;
      }
      return false;
    };
    new MutationObserver((_, observer) => { if (check()) observer.disconnect(); })
      .observe(document, { childList: true, subtree: true });
  })();`;
}

interface LoadResult {
  poolBarsMs: number;
  doneMs: number;
  jsCssBytes: number;
  htmlBytes: number;
  apiBytes: number;
  apiCalls: number;
}

/** One navigation to an org's overview with the token already in this tab's session. */
async function loadOverview(page: Page, url: string): Promise<LoadResult> {
  const sizes: Promise<{ type: string; bytes: number; api: boolean }>[] = [];
  page.on("requestfinished", (request) => {
    sizes.push(
      request.sizes().then((size) => ({
        type: request.resourceType(),
        // A response served from the cache reports no body size.
        bytes: Math.max(0, size.responseBodySize),
        api: new URL(request.url()).pathname.startsWith("/v2/"),
      })),
    );
  });
  await page.goto(url);
  await page.waitForFunction(
    (names) => names.every((name) => (window as unknown as { __marks?: object }).__marks?.[name as never]),
    ["poolBars", "done"],
    { timeout: 120_000 },
  );
  const marks = await page.evaluate(() => (window as unknown as { __marks: Record<string, number> }).__marks);
  await page.waitForLoadState("networkidle");
  const finished = await Promise.all(sizes);
  page.removeAllListeners("requestfinished");
  return {
    poolBarsMs: marks.poolBars!,
    doneMs: marks.done!,
    jsCssBytes: finished
      .filter((entry) => entry.type === "script" || entry.type === "stylesheet")
      .reduce((sum, entry) => sum + entry.bytes, 0),
    htmlBytes: finished
      .filter((entry) => entry.type === "document")
      .reduce((sum, entry) => sum + entry.bytes, 0),
    apiBytes: finished.filter((entry) => entry.api).reduce((sum, entry) => sum + entry.bytes, 0),
    apiCalls: finished.filter((entry) => entry.api).length,
  };
}

async function newTab(browser: Browser, token: string, done: { selector: string; minimum: number }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(([key, value]) => sessionStorage.setItem(key!, value!), [TOKEN_KEY, token]);
  await context.addInitScript(markWhen("poolBars", ".pool-bars svg.bar", 2));
  await context.addInitScript(markWhen("done", done.selector, done.minimum));
  return { context, page: await context.newPage() };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (value: number) => value.toFixed(0);

async function demoFirstLoad(browser: Browser) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "serenity-bench-console-"));
  await fs.chmod(dataDir, 0o755);
  const server = await startSerenity(dataDir);
  try {
    const url = `${server.url}/console/orgs/${server.demoOrgId}`;
    const done = { selector: LEDGER_SHOWN, minimum: 1 };
    const cold: LoadResult[] = [];
    const warm: LoadResult[] = [];
    for (let run = 0; run < LOADS; run++) {
      const { context, page } = await newTab(browser, server.token, done);
      cold.push(await loadOverview(page, url));
      warm.push(await loadOverview(page, url));
      await context.close();
    }
    console.log(`\n## On the demo (serenity start), ${LOADS} loads each, medians\n`);
    printTable(
      [
        "load",
        "JS+CSS KB (compressed)",
        "max JS+CSS KB",
        "HTML KB",
        "API JSON KB",
        "API calls",
        "pool bars ms",
      ],
      [["cold (first visit)", cold] as const, ["warm (reload)", warm] as const].map(([name, results]) => [
        name,
        kb(median(results.map((r) => r.jsCssBytes))),
        // The chart (and uPlot with it) appears once the org has two pool samples.
        kb(Math.max(...results.map((r) => r.jsCssBytes))),
        kb(median(results.map((r) => r.htmlBytes))),
        kb(median(results.map((r) => r.apiBytes))),
        String(median(results.map((r) => r.apiCalls))),
        ms(median(results.map((r) => r.poolBarsMs))),
      ]),
    );
  } finally {
    await server.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

interface OrgUnderTest {
  name: string;
  orgId: string;
  brands: number;
}

/** An org on a pool of its own (one org per pool), big enough to carve `brandCount` brands from. */
async function seedOrg(
  api: Awaited<ReturnType<typeof inProcessApi>>,
  simulatorUrl: string,
  name: string,
  brandCount: number,
  ledgerRows: number,
): Promise<OrgUnderTest> {
  const { id: parentWorkspaceId } = await simControl<{ id: string }>(simulatorUrl, "/parents", {
    title: `${name} parent`,
    metered: false,
    projects: 1_000,
    prompts: 100_000,
  });
  const org = await api.call("POST", "/v2/orgs", { name, parentWorkspaceId });
  const orgId = org.body.id as string;
  const brandIds: string[] = [];
  for (let index = 0; index < brandCount; index++) {
    const brand = await api.call("POST", `/v2/orgs/${orgId}/brands`, { name: `${name} brand ${index + 1}` });
    const workspace = await api.gateway.users.createSubWorkspace(api.token, parentWorkspaceId, {
      title: `${name}-${index}`,
      resources: { projects: 1 + (index % 3), prompts: 100 * (1 + (index % 5)) },
    });
    await recordSyncSubWorkspace(api.db, {
      brandId: brand.body.id,
      subWorkspaceId: workspace.id,
      now: new Date(),
    });
    brandIds.push(brand.body.id);
  }
  for (let row = 0; row < ledgerRows; row++) {
    await insertLedgerEntry(api.db, {
      orgId,
      brandId: brandIds[row % brandIds.length]!,
      subWorkspaceId: `bench-${row % brandIds.length}`,
      reason: row % 4 === 0 ? "release" : "topUp",
      before: { projects: 1, prompts: 100 },
      after: { projects: 2, prompts: 200 },
      outcome: "applied",
      errorCode: null,
      requestId: `bench-${row}`,
      now: new Date(Date.now() - (ledgerRows - row) * 1000),
    });
  }
  return { name, orgId, brands: brandCount };
}

async function overviewAtScale(browser: Browser) {
  const database = await scratchDatabase("console_load");
  const simulator = await simulatorProcess("unmetered");
  const api = await inProcessApi(database.url, simulator.url);
  try {
    const baseUrl = await api.app.listen({ port: 0, host: "127.0.0.1" });
    const orgs = [
      await seedOrg(api, simulator.url, "Small", 1, 10),
      await seedOrg(api, simulator.url, "Big", 50, 1_000),
    ];
    const rows: string[][] = [];
    for (const org of orgs) {
      const done = { selector: "section[aria-labelledby=brands-title] tbody tr", minimum: org.brands };
      const loads: LoadResult[] = [];
      const perRefresh: { calls: number; bytes: number; taskMs: number; perDataSet: string }[] = [];
      for (let run = 0; run < LOADS; run++) {
        const { context, page } = await newTab(browser, api.token, done);
        loads.push(await loadOverview(page, `${baseUrl}/console/orgs/${org.orgId}`));
        if (run === 0) perRefresh.push(await refreshCost(page));
        await context.close();
      }
      const refresh = perRefresh[0]!;
      rows.push([
        `${org.name} (${org.brands} brands)`,
        ms(median(loads.map((load) => load.poolBarsMs))),
        ms(median(loads.map((load) => load.doneMs))),
        refresh.calls.toFixed(1),
        refresh.perDataSet,
        kb(refresh.bytes),
        refresh.taskMs.toFixed(1),
      ]);
    }
    console.log(`\n## Overview at scale (in-process API, ${LOADS} loads, ${REFRESHES} refreshes), medians\n`);
    printTable(
      [
        "org",
        "pool bars ms",
        "all brands shown ms",
        "API calls / refresh",
        "per data set",
        "JSON KB / refresh",
        "main thread ms / refresh",
      ],
      rows,
    );
  } finally {
    await api.close();
    await simulator.stop();
    await database.drop();
  }
}

/** Real refreshes (the page's own 5 s timer): calls and bytes per refresh, main-thread time per refresh. */
async function refreshCost(page: Page) {
  const client = await page.context().newCDPSession(page);
  await client.send("Performance.enable");
  const taskDuration = async () =>
    (await client.send("Performance.getMetrics")).metrics.find((metric) => metric.name === "TaskDuration")!
      .value;
  const calls: { path: string; bytes: Promise<number> }[] = [];
  page.on("requestfinished", (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith("/v2/")) {
      calls.push({
        path: url.pathname.replace(/[0-9a-f-]{36}/g, ":id"),
        bytes: request.sizes().then((s) => s.responseBodySize),
      });
    }
  });
  const before = await taskDuration();
  const refreshesSeen = () => calls.filter((call) => call.path.endsWith("/serenity/resources")).length;
  while (refreshesSeen() < REFRESHES) await page.waitForTimeout(250);
  await page.waitForLoadState("networkidle");
  const taskSeconds = (await taskDuration()) - before;
  const bytes = (await Promise.all(calls.map((call) => call.bytes))).reduce((sum, value) => sum + value, 0);
  const byPath = new Map<string, number>();
  for (const call of calls) byPath.set(call.path, (byPath.get(call.path) ?? 0) + 1);
  await client.detach();
  return {
    calls: calls.length / REFRESHES,
    bytes: bytes / REFRESHES,
    taskMs: (taskSeconds * 1000) / REFRESHES,
    perDataSet: [...byPath.values()].map((count) => (count / REFRESHES).toFixed(0)).join("/"),
  };
}

/** Everything a first visit can ever download (the chart's uPlot included), compressed as served. */
async function bundleSize() {
  const bundle = await loadConsoleBundle();
  let br = 0;
  let gzip = 0;
  let identity = 0;
  for (const [servedPath, asset] of bundle.assets) {
    if (!/\.(js|css)$/.test(servedPath)) continue;
    br += asset.br.length;
    gzip += asset.gzip.length;
    identity += asset.identity.length;
  }
  console.log(`\n## All console JS and CSS (${bundle.assets.size} files)\n`);
  printTable(
    ["encoding", "KB"],
    [
      ["brotli (what Chromium gets)", kb(br)],
      ["gzip", kb(gzip)],
      ["uncompressed", kb(identity)],
    ],
  );
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: CHROMIUM_ARGS,
});
try {
  await bundleSize();
  await demoFirstLoad(browser);
  await overviewAtScale(browser);
} finally {
  await browser.close();
}
