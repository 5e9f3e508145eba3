import { CONFIG_VARIABLES, type ConfigVariable } from "./variables.ts";

/** docs/configuration.md, rendered from the variable catalogue (src/config/variables.ts). */
export function renderConfigurationDoc(variables: readonly ConfigVariable[] = CONFIG_VARIABLES): string {
  const cell = (text: string) => text.replaceAll("|", "\\|");
  const rows = variables.map(
    (variable) =>
      `| ${variable.names.map((name) => `\`${name}\``).join(", ")} | ${cell(variable.default)} | ${
        variable.unit || "—"
      } | ${variable.read} | ${cell(variable.meaning)} |`,
  );
  return [
    "# Configuration",
    "",
    "<!-- Generated from src/config/variables.ts by `npm run config:write`; `npm run config:check` fails on drift. Edit the catalogue, not this file. -->",
    "",
    "Environment variables. _boot_ settings are validated and read once at start (a bad value is one",
    "line naming the variable, exit 1; a change needs a restart). _per use_ ones are read on every",
    "request or job, not cached at start (they are still validated at start). A `…_MS` value that is",
    "not a whole number of milliseconds (`60s`, `-1`, `1.5`) or is longer than a timer can wait",
    "(2,147,483,647 ms, about 24.8 days) fails the start naming the variable. Under",
    "`NODE_ENV=production` (or `SERENITY_ENV=production`) the development defaults marked",
    "“unset → …” or “generated” are refused instead of applied.",
    "",
    "| variable | default | unit | read | meaning |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
}
