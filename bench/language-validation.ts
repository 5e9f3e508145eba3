/**
 * Language validation accuracy on the labelled set the repo carries (test/fixtures/language-set.json,
 * 60 short questions per language, brand-heavy ones included), for the detector configurations we
 * considered, side by side in one run (spec/generation.md §9; ADR 0010):
 *
 *   npx tsx bench/language-validation.ts
 *
 * A text is accepted for a market language when the detector's top language is that language and
 * the relative margin `(top − second) / top` of its scores reaches the threshold. Correct-accept:
 * texts accepted for their own language. Wrong-accepted: a text accepted for another of the seven
 * market languages (each text is checked against all six others). Also the median time of one
 * detection per configuration.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import eldLarge from "eld/large";
import eldMedium from "eld/medium";
import { francAll } from "franc";

import {
  createLanguageValidator,
  LANGUAGE_MARGIN_THRESHOLD,
  relativeMargin,
  SUPPORTED_LANGUAGES,
} from "../src/generation/validation/languageValidator.ts";

const SET = JSON.parse(readFileSync("test/fixtures/language-set.json", "utf8")).languages as Record<
  string,
  { general: string[]; brandHeavy: string[] }
>;
const THRESHOLDS = [0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1];

interface Detection {
  detected: string | null;
  margin: number;
}
type Detector = (text: string) => Detection;

function eldDetector(base: typeof eldLarge, subset: readonly string[] | false): Detector {
  const instance = base.newInstance();
  if (subset) instance.setLanguageSubset([...subset]);
  return (text) => {
    const result = instance.detect(text);
    return result.language
      ? { detected: result.language, margin: relativeMargin(result.getScores()) }
      : { detected: null, margin: 0 };
  };
}

const ISO3: Record<string, string> = {
  en: "eng",
  fr: "fra",
  de: "deu",
  es: "spa",
  it: "ita",
  pt: "por",
  nl: "nld",
};
const FROM_ISO3 = Object.fromEntries(Object.entries(ISO3).map(([two, three]) => [three, two]));

/** franc restricted to the seven; its scores are normalised to the top (1), so margin = 1 − second. */
const francDetector: Detector = (text) => {
  const [top, second] = francAll(text, { only: Object.values(ISO3), minLength: 1 });
  if (!top || top[0] === "und") return { detected: null, margin: 0 };
  return { detected: FROM_ISO3[top[0]] ?? null, margin: relativeMargin({ a: top[1], b: second?.[1] ?? 0 }) };
};

const ours = await createLanguageValidator({ threshold: 0 });
const configurations: [string, Detector][] = [
  [
    "eld large, the seven (ours)",
    (text) => {
      // Through our validator, as production runs it; the market language is irrelevant at threshold 0.
      const check = ours.check(text, "en");
      return { detected: check.detected, margin: check.margin };
    },
  ],
  ["eld large, all 60", eldDetector(eldLarge, false)],
  ["eld medium, the seven", eldDetector(eldMedium, SUPPORTED_LANGUAGES)],
  ["franc 6, the seven", francDetector],
];

const samples = SUPPORTED_LANGUAGES.flatMap((language) => [
  ...SET[language]!.general.map((text) => ({ language, text, brandHeavy: false })),
  ...SET[language]!.brandHeavy.map((text) => ({ language, text, brandHeavy: true })),
]);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

console.log(
  `${samples.length} texts (${samples.filter((s) => s.brandHeavy).length} brand-heavy), ${samples.length * 6} wrong-language checks\n`,
);
console.log(
  "| detector | threshold | correct-accept | brand-heavy correct-accept | wrong-language accepted |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
const timings: string[] = [];
for (const [name, detect] of configurations) {
  for (const sample of samples.slice(0, 50)) detect(sample.text); // warm-up
  const times: number[] = [];
  const detections = samples.map((sample) => {
    const start = performance.now();
    const detection = detect(sample.text);
    times.push((performance.now() - start) * 1000);
    return { ...sample, ...detection };
  });
  timings.push(`| ${name} | ${median(times).toFixed(1)} |`);
  for (const threshold of THRESHOLDS) {
    const accepted = (d: (typeof detections)[number], market: string) =>
      d.detected === market && d.margin >= threshold;
    const correct = detections.filter((d) => accepted(d, d.language)).length;
    const brandHeavy = detections.filter((d) => d.brandHeavy);
    const brandCorrect = brandHeavy.filter((d) => accepted(d, d.language)).length;
    const wrong = detections.reduce(
      (sum, d) => sum + SUPPORTED_LANGUAGES.filter((m) => m !== d.language && accepted(d, m)).length,
      0,
    );
    const mark = name.includes("ours") && threshold === LANGUAGE_MARGIN_THRESHOLD ? " **(chosen)**" : "";
    console.log(
      `| ${name} | ${threshold}${mark} | ${((correct / detections.length) * 100).toFixed(1)} % | ${((brandCorrect / brandHeavy.length) * 100).toFixed(1)} % | ${wrong} |`,
    );
  }
  const misdetected = detections.filter((d) => d.detected !== d.language);
  const worst = Math.max(0, ...misdetected.map((d) => d.margin));
  console.error(
    `${name}: ${misdetected.length} misdetected, largest margin of a wrong answer ${worst.toFixed(4)}`,
  );
}
console.log("\n| detector | median time per text (µs) |\n| --- | ---: |");
for (const line of timings) console.log(line);
