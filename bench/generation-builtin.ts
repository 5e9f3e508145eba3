/**
 * The builtin generator's speed per language (spec/generation.md §9): prompts per second and the
 * p95 time of one generation of `num_prompts = 50` from the simulator's catalogue, and the share
 * of that time spent in the validation pipeline (hard checks, de-duplication, eld, quality).
 *
 *   npx tsx bench/generation-builtin.ts [--iterations 60]
 *
 * Each iteration composes the candidates and validates them, timed separately, exactly as
 * `createBuiltinGenerator().generate` does; languages are interleaved per iteration so machine
 * noise hits all of them alike. The one-time cost of loading eld's database is reported apart.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

import { composeBuiltinCandidates } from "../src/generation/builtin/builtinGenerator.ts";
import { boundSeeds } from "../src/generation/seeds.ts";
import { toGenerationRequest } from "../src/generation/toGenerationRequest.ts";
import { createLanguageValidator } from "../src/generation/validation/languageValidator.ts";
import { validateCandidates } from "../src/generation/validation/validationPipeline.ts";
import { brandTopicsFor } from "../src/simulator/catalogue/brandTopics.ts";

const { values } = parseArgs({ options: { iterations: { type: "string", default: "60" } } });
const ITERATIONS = Number(values.iterations);
const MARKETS = [
  ["en", "us"],
  ["fr", "fr"],
  ["de", "de"],
  ["es", "es"],
  ["it", "it"],
  ["pt", "pt"],
  ["nl", "nl"],
] as const;

const loadStart = performance.now();
const validator = await createLanguageValidator();
const loadMs = performance.now() - loadStart;

const requests = MARKETS.map(([language, country]) =>
  toGenerationRequest(
    {
      brandId: "bench-brand",
      languageCode: language,
      market: country,
      baseUrl: "https://lumiere.example",
      brand: "Lumiere",
      aliases: ["Lumiere Paris"],
      count: 50,
      seeds: boundSeeds(brandTopicsFor("lumiere.example", country)),
    },
    { imsOrgId: "bench-org" },
  ),
);

interface Timing {
  composeMs: number;
  validateMs: number;
  prompts: number;
  candidates: number;
}
const timings = new Map<string, Timing[]>(MARKETS.map(([language]) => [language, []]));

for (let iteration = -5; iteration < ITERATIONS; iteration += 1) {
  for (const request of requests) {
    const start = performance.now();
    const candidates = composeBuiltinCandidates(request);
    const composed = performance.now();
    const response = validateCandidates(candidates, request, validator);
    const done = performance.now();
    if (iteration < 0) continue; // warm-up
    timings.get(request.language_code)!.push({
      composeMs: composed - start,
      validateMs: done - composed,
      prompts: response.ship_summary.final_count,
      candidates: candidates.length,
    });
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

console.log(`eld 'large' database load (once per process): ${loadMs.toFixed(0)} ms\n`);
console.log("| language | candidates | prompts | p50 (ms) | p95 (ms) | prompts/s | validation share |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const [language] of MARKETS) {
  const runs = timings.get(language)!;
  const totals = runs.map((run) => run.composeMs + run.validateMs);
  const meanMs = totals.reduce((a, b) => a + b, 0) / totals.length;
  const validateShare = runs.reduce((a, run) => a + run.validateMs, 0) / totals.reduce((a, b) => a + b, 0);
  console.log(
    `| ${language} | ${runs[0]!.candidates} | ${runs[0]!.prompts} | ${percentile(totals, 50).toFixed(2)} | ${percentile(totals, 95).toFixed(2)} | ${Math.round((runs[0]!.prompts / meanMs) * 1000)} | ${(validateShare * 100).toFixed(1)} % |`,
  );
}
