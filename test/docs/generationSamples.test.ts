import { readFileSync } from "node:fs";

import { format, resolveConfig } from "prettier";
import { beforeAll, describe, expect, it } from "vitest";

import {
  collectSamples,
  isKeep,
  isValidMark,
  readMarks,
  renderSamples,
  SAMPLE_BRANDS,
  SAMPLE_COUNT,
  SAMPLE_MARKETS,
  type Samples,
} from "../../scripts/generationSamplesDoc.ts";

/*
 * docs/generation-samples.md shows what the builtin generator returns for two brands, marked by a
 * person. This holds it to the code: a change to the templates, the grammar rules, the kinds or
 * the simulator's catalogues that changes a sampled prompt fails here until the document is
 * rewritten (`npx tsx scripts/generation-samples.ts write`) and the new prompts are marked.
 */
const TARGET = "docs/generation-samples.md";
/** spec/generation.md §quality: "keep rate ≥ 80 % per language", both brands together. */
const KEEP_RATE_FLOOR = 0.8;

let committed: string;
let samples: Samples;
beforeAll(async () => {
  committed = readFileSync(TARGET, "utf8");
  samples = await collectSamples();
});

describe("docs/generation-samples.md", () => {
  it("samples two brands of different industries, the full count in every language", () => {
    expect(new Set(SAMPLE_BRANDS.map(({ heading }) => heading.replace(/^.*\(/, ""))).size).toBe(2);
    for (const { domain } of SAMPLE_BRANDS) {
      for (const { language } of SAMPLE_MARKETS) {
        expect(samples.get(domain)?.get(language)?.length, `${domain} ${language}`).toBe(SAMPLE_COUNT);
      }
    }
  });

  it("marks every prompt keep or drop with one of the reasons it explains", () => {
    const marks = readMarks(committed);
    const prompts = [...samples.values()].flatMap((byLanguage) => [...byLanguage.values()].flat());
    for (const { text } of prompts) {
      expect(marks.has(text), `unmarked: ${text}`).toBe(true);
      expect(isValidMark(marks.get(text)!), `${text}: ${marks.get(text)}`).toBe(true);
    }
  });

  it(`keeps at least ${KEEP_RATE_FLOOR * 100} % of the prompts in every language`, () => {
    const marks = readMarks(committed);
    const below: string[] = [];
    for (const { language } of SAMPLE_MARKETS) {
      const prompts = SAMPLE_BRANDS.flatMap(({ domain }) => samples.get(domain)?.get(language) ?? []);
      const kept = prompts.filter((prompt) => isKeep(marks.get(prompt.text) ?? "")).length;
      expect(prompts.length, language).toBeGreaterThan(0);
      if (kept / prompts.length < KEEP_RATE_FLOOR) below.push(`${language}: ${kept} of ${prompts.length}`);
    }
    expect(below).toEqual([]);
  });

  it("is what the generator returns now, with its marks", async () => {
    const options = (await resolveConfig(TARGET)) ?? {};
    const rendered = await format(renderSamples(samples, readMarks(committed)), {
      ...options,
      parser: "markdown",
      filepath: TARGET,
    });
    expect(rendered).toBe(committed);
  });
});
