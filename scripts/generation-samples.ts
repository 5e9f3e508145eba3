// Writes docs/generation-samples.md from the builtin generator (keeping the marks already there),
// or checks that the committed copy is what the generator returns and that every prompt is marked.
import { readFileSync, writeFileSync } from "node:fs";

import { format, resolveConfig } from "prettier";

import { collectSamples, readMarks, renderSamples, UNMARKED } from "./generationSamplesDoc.ts";

const TARGET = "docs/generation-samples.md";

let committed = "";
try {
  committed = readFileSync(TARGET, "utf8");
} catch {
  // missing: every prompt is unmarked
}
const options = (await resolveConfig(TARGET)) ?? {};
const rendered = renderSamples(await collectSamples(), readMarks(committed));
const document = await format(rendered, { ...options, parser: "markdown", filepath: TARGET });
const unmarked = document.split("\n").filter((line) => line.includes(`| ${UNMARKED}`)).length;
const mode = process.argv[2];
if (mode === "write") {
  writeFileSync(TARGET, document);
  console.log(`wrote ${TARGET}${unmarked > 0 ? ` (${unmarked} prompts to mark)` : ""}`);
} else if (mode === "check") {
  if (committed !== document || unmarked > 0) {
    console.error(
      `${TARGET} is not what the builtin generator returns (or has unmarked prompts): run \`npx tsx scripts/generation-samples.ts write\`, mark the new prompts and commit.`,
    );
    process.exit(1);
  }
  console.log(`${TARGET} is current`);
} else {
  console.error("usage: tsx scripts/generation-samples.ts write|check");
  process.exit(2);
}
