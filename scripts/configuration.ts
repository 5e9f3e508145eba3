// Writes docs/configuration.md from the variable catalogue, or checks that the committed copy is current.
import { readFileSync, writeFileSync } from "node:fs";

import { format, resolveConfig } from "prettier";

import { renderConfigurationDoc } from "../src/config/configurationDoc.ts";

const TARGET = "docs/configuration.md";

const options = (await resolveConfig(TARGET)) ?? {};
const document = await format(renderConfigurationDoc(), { ...options, parser: "markdown", filepath: TARGET });
const mode = process.argv[2];
if (mode === "write") {
  writeFileSync(TARGET, document);
  console.log(`wrote ${TARGET}`);
} else if (mode === "check") {
  let committed = "";
  try {
    committed = readFileSync(TARGET, "utf8");
  } catch {
    // missing counts as drift
  }
  if (committed !== document) {
    console.error(
      `${TARGET} is out of date with src/config/variables.ts: run \`npm run config:write\` and commit it.`,
    );
    process.exit(1);
  }
  console.log(`${TARGET} is current`);
} else {
  console.error("usage: tsx scripts/configuration.ts write|check");
  process.exit(2);
}
