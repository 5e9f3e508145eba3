import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { GENERATE_MARKET_PROMPTS_JOB } from "../../../src/generation/generationJobType.ts";
import { EventBus } from "../../../src/observability/events.ts";
import { createMetrics } from "../../../src/observability/metrics.ts";
import { createTestDatabase, type TestDatabase } from "../../support/database.ts";
import { api, prepareOrg, type ServeProcess, startServe } from "../../support/multiProcessWorkload.ts";
import { startTestSimulator, type TestSimulator } from "../../support/simulator.ts";

/**
 * The Grafana dashboard (ops/grafana/serenity-dashboard.json) and the Prometheus rules
 * (ops/prometheus/serenity.rules.yml) may only name metrics a running Serenity exposes: a real
 * `serve` on the simulator is scraped after some traffic, and every panel's expression must name
 * metrics of that scrape and parse as PromQL (promtool, Debian's prometheus package, as .ci/run
 * installs it). Labels too: every label a panel selects on or groups by is one its metrics carry
 * (their declared label names, the same registry the process serves), and every value it selects
 * is one the scrape shows for that label, or one of VALUES_THE_SCRAPE_LACKS below.
 */
const run = promisify(execFile);
const DASHBOARD = "ops/grafana/serenity-dashboard.json";
/**
 * Values panels select that this test's traffic does not produce, with where the code writes them:
 * upstream status classes (upstreamBudgetMetrics.ts: `${status / 100}xx`, or `network`), the
 * generation job's type (checked against the job registry below) and a brand lease wait that ran
 * out (provisioningMetrics.ts: `busy`).
 */
const VALUES_THE_SCRAPE_LACKS: Record<string, string[]> = {
  status_class: ["4xx", "5xx", "network"],
  // The API's 5xx answers (src/api/errorMapping.ts: internal 500, unavailable dependencies 503).
  status: ["500", "503"],
  type: ["generate-market-prompts"],
  outcome: ["busy"],
};
const RULES = "ops/prometheus/serenity.rules.yml";
/** Labels Prometheus adds to every scraped series (the target's), which panels may group by. */
const TARGET_LABELS = ["instance", "job"];

interface Target {
  expr: string;
}
interface Panel {
  title: string;
  type: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
}

let db: TestDatabase;
let sim: TestSimulator;
let serve: ServeProcess;
let scrape: string;
let dashboard: Dashboard;

/** Every series name a scrape can hold: declared names, and a histogram's three series. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
  }
  return names;
}

/** The metric names an expression uses (Serenity's all start with `serenity_`). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\bserenity_[a-z0-9_]+\b/g)].map((match) => match[0]);
}

/** Each selector of an expression: its metric and its label matchers. */
function selectorsIn(
  expr: string,
): { metric: string; matchers: { label: string; op: string; value: string }[] }[] {
  return [...expr.matchAll(/\b(serenity_[a-z0-9_]+)\b(?:\{([^}]*)\})?/g)].map(([, metric, inside]) => ({
    metric: metric!,
    matchers: [...(inside ?? "").matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(
      ([, label, op, value]) => ({
        label: label!,
        op: op!,
        value: value!,
      }),
    ),
  }));
}

/** The labels an expression groups by (`by (…)`, `without (…)`). */
function groupingLabelsIn(expr: string): string[] {
  return [...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap(([, list]) =>
    list!
      .split(",")
      .map((label) => label.trim())
      .filter(Boolean),
  );
}

let registryForLabels: ReturnType<typeof createMetrics>["registry"] | undefined;

/** The label names a series name carries: its metric's declared ones, and `le` on a histogram bucket. */
function declaredLabels(series: string): string[] | undefined {
  registryForLabels ??= (() => {
    const events = new EventBus();
    // As a process has it: the default process metrics too (serenity_process_*).
    const metrics = createMetrics(events, {
      defaultMetrics: true,
      pool: () => ({ checkedOut: 0, idle: 0, waiting: 0, max: 1 }),
    });
    // The upstream-health gauge is registered on the first probe's answer.
    events.emit("gateway.health", { reachable: true });
    return metrics.registry;
  })();
  const registry = registryForLabels;
  const base = series.replace(/_(bucket|sum|count)$/, "");
  const metric = registry.getSingleMetric(series) ?? registry.getSingleMetric(base);
  if (!metric) return undefined;
  const labels = [...((metric as unknown as { labelNames?: string[] }).labelNames ?? [])];
  return series.endsWith("_bucket") ? [...labels, "le"] : labels;
}

/** The values a label takes on a series name in the scrape. */
function scrapedValues(text: string, series: string, label: string): Set<string> {
  const values = new Set<string>();
  for (const [, labels] of text.matchAll(new RegExp(`^${series}\\{([^}]*)\\}`, "gm"))) {
    const value = new RegExp(`(?:^|,)${label}="([^"]*)"`).exec(labels!)?.[1];
    if (value !== undefined) values.add(value);
  }
  return values;
}

function panelsOf(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);
}

/** Grafana's variables replaced by values Prometheus accepts, as Grafana does before a query. */
function asPromql(expr: string): string {
  return expr.replaceAll("$__rate_interval", "5m").replaceAll("$__interval", "1m").replaceAll("$org", ".*");
}

async function promtool(): Promise<string> {
  try {
    await run("promtool", ["--version"]);
    return "promtool";
  } catch {
    throw new Error(
      "promtool is missing: install Debian's prometheus package (apt-get install -y --no-install-recommends prometheus; .ci/run does)",
    );
  }
}

beforeAll(async () => {
  dashboard = JSON.parse(await readFile(DASHBOARD, "utf8")) as Dashboard;
  db = await createTestDatabase();
  sim = await startTestSimulator({ seed: "gold" });
  // With the operator's bearer, so the upstream-health probe runs and its gauge is scraped.
  serve = await startServe({
    databaseUrl: db.url,
    simulatorUrl: sim.url,
    env: { SERENITY_UPSTREAM_TOKEN: "operator-upstream-token" },
  });
  // Some traffic: an org on the gold pool, a brand with a market (upstream calls, allocation,
  // budget waits), the pool view, a rejected request.
  const { orgId, token } = await prepareOrg(serve.url);
  const brand = await api(serve.url, token, "POST", `/v2/orgs/${orgId}/brands`, {
    name: "Dashboard brand",
    domain: "dashboard.example",
    semrushMarket: { market: "US", languageCode: "en" },
  });
  expect(brand.status).toBe(201);
  expect((await api(serve.url, token, "GET", `/v2/orgs/${orgId}/serenity/resources`)).status).toBe(200);
  expect(
    (await api(serve.url, token, "GET", `/v2/orgs/${orgId}/brands/00000000-0000-4000-8000-000000000000`))
      .status,
  ).toBe(404);
  scrape = await (await fetch(`${serve.url}/metrics`)).text();
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  await sim?.close();
  await db?.destroy();
});

describe("the Grafana dashboard", () => {
  it("is provisioning-ready: a fixed uid and its data source as a variable", () => {
    expect(dashboard.uid).toBe("serenity-overview");
    expect(JSON.stringify(dashboard)).not.toMatch(/"id":\s*null|DS_PROMETHEUS/);
    expect(dashboard.templating.list.map((variable) => variable.name)).toContain("datasource");
  });

  it("names only metrics the running instance exposes, in every panel", () => {
    const exposed = exposedNames(scrape);
    // The scrape is a real one after traffic, not an empty registry.
    expect(scrape).toMatch(/^serenity_http_requests_total\{.*status="201".*\} \d+/m);
    expect(scrape).toMatch(/^serenity_upstream_calls_total\{.*\} \d+/m);
    const panels = panelsOf(dashboard.panels).filter((panel) => panel.type !== "row");
    expect(panels.length).toBeGreaterThanOrEqual(20);
    const unknown: string[] = [];
    for (const panel of panels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) {
        const names = metricsIn(target.expr);
        expect(names.length, `${panel.title}: ${target.expr}`).toBeGreaterThan(0);
        unknown.push(...names.filter((name) => !exposed.has(name)).map((name) => `${panel.title}: ${name}`));
      }
    }
    for (const variable of dashboard.templating.list) {
      unknown.push(...metricsIn(variable.definition ?? "").filter((name) => !exposed.has(name)));
    }
    expect(unknown).toEqual([]);
  });

  it("selects and groups only by labels its metrics carry, on values they take", () => {
    expect(VALUES_THE_SCRAPE_LACKS.type).toEqual([GENERATE_MARKET_PROMPTS_JOB]);
    const wrong: string[] = [];
    const targets = panelsOf(dashboard.panels).flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ title: panel.title, expr: target.expr })),
    );
    for (const { title, expr } of targets) {
      const selectors = selectorsIn(expr);
      for (const { metric, matchers } of selectors) {
        const labels = declaredLabels(metric);
        if (!labels) {
          wrong.push(`${title}: ${metric} is not in the registry`);
          continue;
        }
        for (const { label, op, value } of matchers) {
          if (!labels.includes(label)) wrong.push(`${title}: ${metric} has no label ${label}`);
          if ((op !== "=" && op !== "=~") || value.startsWith("$")) continue;
          const known = new Set([
            ...scrapedValues(scrape, metric, label),
            ...(VALUES_THE_SCRAPE_LACKS[label] ?? []),
          ]);
          for (const alternative of op === "=" ? [value] : value.split("|")) {
            // A pattern (`5..`) must match a value written; a literal must be one.
            const literal = /^[\w.-]*$/.test(alternative) && !alternative.includes(".");
            const matches = literal
              ? known.has(alternative)
              : [...known].some((candidate) => new RegExp(`^(?:${alternative})$`).test(candidate));
            if (!matches) wrong.push(`${title}: ${metric}{${label}="${alternative}"} is never written`);
          }
        }
      }
      for (const label of groupingLabelsIn(expr)) {
        for (const { metric } of selectors) {
          if (!TARGET_LABELS.includes(label) && !(declaredLabels(metric) ?? []).includes(label))
            wrong.push(`${title}: ${metric} has no label ${label} to group by`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // The scrape and the registry agree on the labels a series carries where the scrape shows one.
    expect(scrapedValues(scrape, "serenity_http_requests_total", "status").size).toBeGreaterThan(0);
    expect(declaredLabels("serenity_http_requests_total")).toContain("status");
  });

  it("has expressions that all parse as PromQL", async () => {
    const tool = await promtool();
    const exprs = panelsOf(dashboard.panels)
      .flatMap((panel) => panel.targets ?? [])
      .map((t) => t.expr);
    const dir = await mkdtemp(path.join(os.tmpdir(), "serenity-dashboard-"));
    try {
      // Each expression as a recording rule: `promtool check rules` parses every one.
      const rules = [
        "groups:",
        "  - name: dashboard",
        "    rules:",
        ...exprs.flatMap((expr, i) => [
          `      - record: dashboard:panel_${i}`,
          `        expr: ${JSON.stringify(asPromql(expr))}`,
        ]),
      ].join("\n");
      const file = path.join(dir, "dashboard.rules.yml");
      await writeFile(file, `${rules}\n`);
      const { stdout } = await run(tool, ["check", "rules", file]);
      expect(stdout).toContain(`SUCCESS: ${exprs.length} rules found`);
      // A broken expression does fail the check (the check is not vacuous).
      await writeFile(
        file,
        `groups:\n  - name: x\n    rules:\n      - record: x:y\n        expr: "sum(rate(serenity_jobs_total[5m])"\n`,
      );
      await expect(run(tool, ["check", "rules", file])).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the Prometheus rules", () => {
  it("name only metrics the running instance exposes", async () => {
    const exposed = exposedNames(scrape);
    const names = metricsIn(await readFile(RULES, "utf8"));
    expect(names.length).toBeGreaterThan(10);
    expect([...new Set(names)].filter((name) => !exposed.has(name))).toEqual([]);
  });
});
