// docs/generation-samples.md: the builtin generator's prompts for sample brands, as the prompt
// preview returns them, with a person's keep/drop marks. The prompts come from the code; the marks
// (and only they) are read back from the committed document, so a regenerated document keeps every
// mark whose prompt is unchanged and shows a changed prompt as unmarked until someone reads it.
import { createBuiltinGenerator } from "../src/generation/builtin/builtinGenerator.ts";
import { describeGeneratedPrompts } from "../src/generation/describeGeneratedPrompts.ts";
import { boundSeeds } from "../src/generation/seeds.ts";
import { toGenerationRequest } from "../src/generation/toGenerationRequest.ts";
import { createLanguageValidator } from "../src/generation/validation/languageValidator.ts";
import { brandTopicsFor, topicLanguageFor } from "../src/simulator/catalogue/brandTopics.ts";
import { industryFor } from "../src/simulator/catalogue/industries/industries.ts";

export interface SampleBrand {
  heading: string;
  domain: string;
  brand: string;
}

/** Two brands of different industries, each read from its domain by the simulator's catalogue. */
export const SAMPLE_BRANDS: readonly SampleBrand[] = [
  { heading: "Aurore Skincare (skin care)", domain: "aurore-skincare.example", brand: "Aurore" },
  { heading: "Swiftrun (running shoes)", domain: "swiftrun.example", brand: "Swiftrun" },
];

/** The markets sampled, one per generation language. */
export const SAMPLE_MARKETS = [
  { language: "en", country: "US" },
  { language: "fr", country: "FR" },
  { language: "de", country: "DE" },
  { language: "es", country: "ES" },
  { language: "it", country: "IT" },
  { language: "pt", country: "PT" },
  { language: "nl", country: "NL" },
] as const;

export const SAMPLE_COUNT = 20;

/** One-word reasons for a drop, as the document explains them. */
export const DROP_REASONS = ["odd", "vague", "redundant", "repetitive", "stilted", "ungrammatical"] as const;

export const UNMARKED = "unmarked";

export interface SamplePrompt {
  text: string;
  topic: string | null;
}

/** `brand → language → prompts`, in the preview's order. */
export type Samples = Map<string, Map<string, SamplePrompt[]>>;

/**
 * The preview's composition (src/generation/promptPreviewService.ts) without the HTTP hops: the
 * simulator's `brand-topics` for the domain and country, bounded as fetchMarketSeeds bounds it,
 * the request the preview builds, the builtin generator, and the preview's description of each
 * prompt (its grounding topic).
 */
export async function collectSamples(): Promise<Samples> {
  const validator = await createLanguageValidator();
  const builtin = createBuiltinGenerator({ languageValidator: async () => validator });
  const samples: Samples = new Map();
  for (const sample of SAMPLE_BRANDS) {
    const byLanguage = new Map<string, SamplePrompt[]>();
    for (const market of SAMPLE_MARKETS) {
      const seeds = boundSeeds(brandTopicsFor(sample.domain, market.country.toLowerCase()));
      const request = toGenerationRequest(
        {
          brandId: "00000000-0000-4000-8000-000000000001",
          languageCode: market.language,
          market: market.country,
          baseUrl: `https://${sample.domain}`,
          brand: sample.brand,
          aliases: [],
          count: SAMPLE_COUNT,
          seeds,
        },
        { imsOrgId: null },
      );
      const response = await builtin.generate(request);
      byLanguage.set(
        market.language,
        describeGeneratedPrompts(response.prompts, request).map(({ text, topic }) => ({ text, topic })),
      );
    }
    samples.set(sample.domain, byLanguage);
  }
  return samples;
}

/** `prompt → mark` ("keep", "drop — odd", …) from a document's tables. */
export function readMarks(document: string): Map<string, string> {
  const marks = new Map<string, string>();
  for (const line of document.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    // | # | prompt | topic | mark |
    if (cells.length !== 6 || !/^\d+$/.test(cells[1]!)) continue;
    const prompt = cells[2]!.replaceAll("\\|", "|");
    if (cells[4] && cells[4] !== UNMARKED) marks.set(prompt, cells[4]);
  }
  return marks;
}

export function isKeep(mark: string): boolean {
  return mark === "keep";
}

export function isValidMark(mark: string): boolean {
  if (isKeep(mark)) return true;
  const reason = /^drop — (\S+)$/.exec(mark)?.[1];
  return reason !== undefined && (DROP_REASONS as readonly string[]).includes(reason);
}

const percent = (kept: number, total: number) =>
  total === 0 ? "–" : `${Math.round((kept * 100) / total)} %`;

/** The whole document: prose, keep rates per language and brand, then every table. */
export function renderSamples(samples: Samples, marks: ReadonlyMap<string, string>): string {
  const markOf = (text: string) => marks.get(text) ?? UNMARKED;
  const rates = SAMPLE_MARKETS.map(({ language }) => {
    const cells = SAMPLE_BRANDS.map(({ domain }) => {
      const prompts = samples.get(domain)?.get(language) ?? [];
      return { kept: prompts.filter((prompt) => isKeep(markOf(prompt.text))).length, total: prompts.length };
    });
    const kept = cells.reduce((sum, cell) => sum + cell.kept, 0);
    const total = cells.reduce((sum, cell) => sum + cell.total, 0);
    return `| ${language} | ${cells.map((cell) => percent(cell.kept, cell.total)).join(" | ")} | ${percent(kept, total)} |`;
  });
  const lines = [
    "# What the builtin generator writes: samples, read by a person",
    "",
    `${SAMPLE_COUNT} prompts per language, exactly as the prompt preview returns them for \`{"count": ${SAMPLE_COUNT}, "generator": "builtin"}\`,`,
    "for two brands of different industries; the simulator's `brand-topics` picks each one's catalogue",
    "from its domain. Each prompt is marked **keep** (a marketer would monitor it as written) or",
    "**drop**, with a one-word reason:",
    "",
    '- _odd_: grammatical, but the question makes little sense for the topic ("complaints about gift cards");',
    '- _vague_: too general to tell anything about this market ("the brands of this field");',
    '- _redundant_: the topic repeats the question ("value for money … in terms of prices");',
    "- _repetitive_: the brand name and the catalogue's wording repeat each other;",
    "- _stilted_: understandable, but no one would ask it this way;",
    "- _ungrammatical_: a grammar defect (none so far).",
    "",
    "The prompts are written by `npx tsx scripts/generation-samples.ts write`, which runs the preview's",
    "composition (the simulator's catalogue for the domain and country, bounded as the preview bounds it,",
    "the builtin generator and its validation) and keeps the marks of every prompt already in this file;",
    "a prompt the generator now writes differently shows as _unmarked_ until someone reads it.",
    "`npx vitest run test/docs/generationSamples.test.ts` fails when this file is not what the generator",
    "returns, or when a prompt is unmarked. The marks are one reviewer's reading (the engineer who wrote",
    "the templates and catalogues), not a panel's; read them as a check, and re-mark when templates change.",
    "",
    "## Keep rate per language",
    "",
    `| language | ${SAMPLE_BRANDS.map(({ heading }) => heading.replace(/^.*\((.*)\)$/, "$1")).join(" | ")} | both |`,
    `| -------- | ${SAMPLE_BRANDS.map(() => "--:").join(" | ")} | ---: |`,
    ...rates,
    "",
    "Target: ≥ 80 % for every language. Before the templates were rewritten, a reading of 15 prompts per",
    "market for `lumiere.example` (the generic catalogue) kept about a third.",
  ];
  for (const sample of SAMPLE_BRANDS) {
    const industry = industryFor(sample.domain) ?? "generic";
    lines.push(
      "",
      `## ${sample.heading}`,
      "",
      `Domain \`${sample.domain}\` (the simulator's ${industry} catalogue), brand \`${sample.brand}\`.`,
    );
    for (const { language, country } of SAMPLE_MARKETS) {
      const prompts = samples.get(sample.domain)?.get(language) ?? [];
      const kept = prompts.filter((prompt) => isKeep(markOf(prompt.text))).length;
      lines.push(
        "",
        `### ${language} (${country}, catalogue in ${topicLanguageFor(country.toLowerCase())})`,
        "",
        "| # | prompt | topic | mark |",
        "| --: | --- | --- | --- |",
        ...prompts.map(
          (prompt, index) =>
            `| ${index + 1} | ${prompt.text.replaceAll("|", "\\|")} | ${prompt.topic ?? "–"} | ${markOf(prompt.text)} |`,
        ),
        "",
        `Keep rate: **${kept}/${prompts.length} = ${percent(kept, prompts.length)}**`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
