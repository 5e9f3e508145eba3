import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { Command } from "commander";
import { describe, expect, it } from "vitest";

import { registerAdmin } from "../../src/cli/commands/admin.ts";
import { registerAudit } from "../../src/cli/commands/audit.ts";
import { registerCredentials } from "../../src/cli/commands/credentials.ts";
import { registerMigrate } from "../../src/cli/commands/migrate.ts";
import { registerReconcile } from "../../src/cli/commands/reconcile.ts";
import { registerServe } from "../../src/cli/commands/serve.ts";
import { registerSimulator } from "../../src/cli/commands/simulator.ts";
import { registerStart } from "../../src/cli/commands/start.ts";
import { registerSweep } from "../../src/cli/commands/sweep.ts";
import { registerToken } from "../../src/cli/commands/token.ts";
import { registerWorker } from "../../src/cli/commands/worker.ts";
import { CONFIG_VARIABLES } from "../../src/config/variables.ts";
import { EventBus } from "../../src/observability/events.ts";
import { createMetrics } from "../../src/observability/metrics.ts";

/**
 * The runbooks held to what exists: every `serenity …` command they cite is one the CLI has (with
 * its subcommand and its options), every metric one a process registers, every recording rule and
 * alert one of ops/prometheus/serenity.rules.yml, every SERENITY_* setting one of
 * src/config/variables.ts, every link to another runbook a file with that heading; and every alert
 * names a runbook (and heading) that exists.
 */
const RUNBOOKS = "docs/runbooks";
const RULES = readFileSync("ops/prometheus/serenity.rules.yml", "utf8");
const runbooks = readdirSync(RUNBOOKS)
  .filter((file) => file.endsWith(".md"))
  .map((file) => ({ file, text: readFileSync(path.join(RUNBOOKS, file), "utf8") }));

function cli(): Command {
  const program = new Command("serenity");
  for (const register of [
    registerStart,
    registerServe,
    registerMigrate,
    registerToken,
    registerSimulator,
    registerWorker,
    registerSweep,
    registerAudit,
    registerReconcile,
    registerAdmin,
    registerCredentials,
  ])
    register(program);
  return program;
}

/** What is wrong with `serenity <words>` as a command line, or undefined when the CLI has it. */
function commandProblem(program: Command, words: string[]): string | undefined {
  let command = program;
  let index = 0;
  while (index < words.length && !words[index]!.startsWith("-")) {
    const next = command.commands.find((candidate) => candidate.name() === words[index]);
    if (!next) {
      if (command.commands.length > 0) return `no command ${words[index]}`;
      break; // an argument (`admin set <key> <value>`)
    }
    command = next;
    index += 1;
  }
  if (command === program) return "no command";
  if (command.commands.length > 0) return `${command.name()} needs a subcommand`;
  const known = new Set(command.options.flatMap((option) => [option.long, option.short]));
  const unknown = words
    .slice(index)
    .filter((word) => word.startsWith("--") && !known.has(word.split("=")[0]!));
  return unknown.length > 0 ? `${command.name()} has no option ${unknown.join(", ")}` : undefined;
}

/** Code spans of a Markdown text (inline, single backticks). */
function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);
}

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .replace(/ /g, "-");
}

function anchorsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)));
}

function registeredMetrics(): Set<string> {
  const events = new EventBus();
  const { registry } = createMetrics(events, {
    defaultMetrics: true,
    pool: () => ({ checkedOut: 0, idle: 0, waiting: 0, max: 1 }),
  });
  events.emit("gateway.health", { reachable: true }); // registered on the first probe
  const names = new Set<string>();
  for (const metric of registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    names.add(name);
    if (type === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${name}${suffix}`);
  }
  return names;
}

const ALERTS = new Set([...RULES.matchAll(/- alert: (\w+)/g)].map((match) => match[1]!));
const RECORDED = new Set([...RULES.matchAll(/- record: (\S+)/g)].map((match) => match[1]!));
const SETTINGS = new Set(CONFIG_VARIABLES.flatMap((variable) => variable.names));

describe("the runbooks", () => {
  it("are the four of issue 40 among others", () => {
    const files = runbooks.map((runbook) => runbook.file);
    for (const file of [
      "database-failover.md",
      "semrush-outage.md",
      "connection-pool-exhaustion.md",
      "identity-provider-outage.md",
    ])
      expect(files).toContain(file);
  });

  it("cite only commands the CLI has, with their subcommands and options", () => {
    const program = cli();
    const wrong: string[] = [];
    for (const { file, text } of runbooks) {
      for (const span of codeSpans(text)) {
        const line = /^serenity ([^`]+)$/.exec(span.trim())?.[1];
        if (!line) continue;
        const words = line.split(/\s+/).filter((word) => !/^[<[…]/.test(word));
        const problem = commandProblem(program, words);
        if (problem) wrong.push(`${file}: \`${span}\`: ${problem}`);
      }
    }
    expect(wrong).toEqual([]);
    // Not vacuous: a made-up command and a made-up option are caught.
    expect(commandProblem(program, ["frobnicate"])).toBeDefined();
    expect(commandProblem(program, ["audit", "--everything"])).toBeDefined();
    expect(commandProblem(program, ["admin"])).toBeDefined();
  });

  it("cite only metrics a process registers, recording rules and alerts that exist, settings that exist", () => {
    const metrics = registeredMetrics();
    const wrong: string[] = [];
    for (const { file, text } of runbooks) {
      for (const [name] of text.matchAll(/\bserenity_[a-z0-9_]+\b/g))
        if (!metrics.has(name)) wrong.push(`${file}: metric ${name}`);
      for (const [name] of text.matchAll(/\bserenity:[a-z0-9_:]+\b/g))
        if (!RECORDED.has(name)) wrong.push(`${file}: recording rule ${name}`);
      for (const [name] of text.matchAll(/`(Serenity[A-Z]\w+)`/g))
        if (!ALERTS.has(name.slice(1, -1))) wrong.push(`${file}: alert ${name}`);
      for (const [name] of text.matchAll(/\bSERENITY_[A-Z0-9_]+\b/g))
        if (!SETTINGS.has(name)) wrong.push(`${file}: setting ${name}`);
    }
    expect(wrong).toEqual([]);
  });

  it("link only to runbooks and headings that exist", () => {
    const byFile = new Map(runbooks.map((runbook) => [runbook.file, runbook.text]));
    const wrong: string[] = [];
    for (const { file, text } of runbooks) {
      for (const [, target, anchor] of text.matchAll(/\]\(([\w-]+\.md)(?:#([\w-]+))?\)/g)) {
        const linked = byFile.get(target!);
        if (!linked) wrong.push(`${file}: ${target}`);
        else if (anchor && !anchorsOf(linked).has(anchor)) wrong.push(`${file}: ${target}#${anchor}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("the alerts", () => {
  it("each name a runbook, and the heading they point at, that exist", () => {
    const urls = [...RULES.matchAll(/- alert: (\w+)[\s\S]*?runbook_url: (\S+)/g)].map(([, alert, url]) => ({
      alert: alert!,
      url: url!,
    }));
    expect(urls.length).toBe(ALERTS.size);
    const wrong: string[] = [];
    for (const { alert, url } of urls) {
      const [file, anchor] = url.split("#");
      const runbook = runbooks.find((candidate) => `${RUNBOOKS}/${candidate.file}` === file);
      if (!runbook) wrong.push(`${alert}: ${file}`);
      else if (anchor && !anchorsOf(runbook.text).has(anchor)) wrong.push(`${alert}: ${url}`);
    }
    expect(wrong).toEqual([]);
  });
});
