import { beforeAll, describe, expect, it } from "vitest";

import { describeGeneratedPrompts } from "../../../../src/generation/describeGeneratedPrompts.ts";
import {
  createLanguageValidator,
  type LanguageValidator,
} from "../../../../src/generation/validation/languageValidator.ts";
import {
  minimumToShip,
  validateCandidates,
} from "../../../../src/generation/validation/validationPipeline.ts";
import { DRS_CONTRACT, FIVE_SEED_REQUEST } from "../../../support/generationFixtures.ts";

let validator: LanguageValidator;
beforeAll(async () => {
  validator = await createLanguageValidator();
});

const request = FIVE_SEED_REQUEST;

describe("validation pipeline (§7)", () => {
  it("counts each stage in ship_summary, and the counts add up", () => {
    const candidates = [
      { prompt: "Quelle creme hydratante convient le mieux aux peaux seches en hiver ?", category: "" },
      { prompt: "quelle crème hydratante convient le mieux aux peaux sèches en hiver", category: "" }, // duplicate
      { prompt: "creme hydratante visage", category: "" }, // bare keyword
      { prompt: "Is https://lumiere.example a good shop?", category: "" }, // URL
      { prompt: "Which moisturiser is best for dry skin in winter?", category: "solution" }, // wrong language
      { prompt: "Welche Feuchtigkeitscreme ist im Winter am besten?", category: "solution" }, // wrong language
      { prompt: "Comment integrer un serum a la vitamine C dans une routine de soin ?", category: "" },
      { prompt: "Quelle protection solaire choisir pour une peau sensible ?", category: "" },
      { prompt: "Lumiere Paris vaut-elle mieux que ses concurrents pour une peau sensible ?", category: "" },
      { prompt: "Quels problemes rencontre-t-on avec une creme hydratante bon marche ?", category: "" },
      { prompt: "Que faut-il savoir sur la routine de soin du soir ?", category: "" },
    ];
    const response = validateCandidates(candidates, request, validator);
    const s = response.ship_summary;
    expect(s.generated).toBe(11);
    expect(s.hard_validated).toBe(9);
    expect(s.guardrail_dropped).toBe(1);
    expect(s.language_rejected).toBe(2);
    expect(s.hard_validated - s.guardrail_dropped - s.language_rejected - s.quality_downranked).toBe(
      s.final_count,
    );
    expect(s.final_count).toBe(response.prompts.length);
    expect(s.final_count).toBe(5);
    // One prompt per topic (ceil(5/5)): the second one about moisturisers is the one left out.
    expect(s.quality_downranked).toBe(1);
    expect(response.prompts.map((p) => p.prompt)).not.toContain(
      "Quels problemes rencontre-t-on avec une creme hydratante bon marche ?",
    );
    expect(new Set(response.prompts.map((p) => p.topic)).size).toBe(5);
    expect(s).toMatchObject({ verdict: "ship", error_category: null, reason: "ok" });
    expect(response.language_evidence).toHaveLength(5);
    for (const evidence of response.language_evidence) {
      expect(evidence.detected_language).toBe("fr");
      expect(evidence.language_validation_passed).toBe(true);
      expect(evidence.language_confidence).toBeGreaterThan(0);
    }
    // Categories are ours: kept when given, inferred otherwise.
    for (const prompt of response.prompts) {
      expect(["comparative", "solution", "task", "informational", "pain_point"]).toContain(prompt.category);
    }
    // No category above half of the kept set; one branded prompt (10–30 % rounds to one of five).
    const perCategory = new Map<string, number>();
    for (const p of response.prompts) perCategory.set(p.category, (perCategory.get(p.category) ?? 0) + 1);
    expect(Math.max(...perCategory.values())).toBeLessThanOrEqual(2);
    expect(response.prompts.filter((p) => p.prompt.includes("Lumiere"))).toHaveLength(1);
  });

  it("the fixture's prompts survive our pipeline", () => {
    const parsed = DRS_CONTRACT.response as { prompts: { prompt: string; category: string }[] };
    const response = validateCandidates(parsed.prompts, DRS_CONTRACT.request, validator);
    expect(response.ship_summary).toMatchObject({ verdict: "ship", final_count: 2, language_rejected: 0 });
    expect(response.prompts.map((p) => p.category)).toEqual(["solution", "task"]);
    expect(response.prompts.map((p) => p.prompt)).toEqual(parsed.prompts.map((p) => p.prompt));
    expect(response.prompts.map((p) => p.topic)).toEqual(["creme hydratante visage", "serum vitamine c"]);
  });

  it("holds with a reason when fewer than min(n, 5) survive", () => {
    expect(minimumToShip(50)).toBe(5);
    expect(minimumToShip(2)).toBe(2);
    const response = validateCandidates(
      [
        { prompt: "Quelle creme hydratante choisir pour une peau seche ?", category: "" },
        { prompt: "What is the best serum for dull skin?", category: "" },
        { prompt: "serum vitamine c", category: "" },
      ],
      request,
      validator,
    );
    expect(response.ship_summary).toMatchObject({
      generated: 3,
      hard_validated: 2,
      language_rejected: 1,
      final_count: 1,
      verdict: "held",
      error_category: null,
    });
    expect(response.ship_summary.reason).toBe(
      "insufficient-prompts: 1 of the 5 required survived validation (generated 3, hard-check failures 1, duplicates 0, wrong language 1)",
    );
  });

  it("describes prompts for the job's tags and the preview: category, derived type, topic", () => {
    const described = describeGeneratedPrompts(
      [
        { prompt: "Quelle creme hydratante convient le mieux aux peaux seches ?", category: "soins" },
        {
          prompt: "Lumiere Paris vaut-elle mieux que ses concurrents ?",
          category: "comparative",
          topic: "inconnu",
        },
        { prompt: "Quel serum choisir ?", category: "solution", topic: "serum vitamine c" },
      ],
      DRS_CONTRACT.request,
    );
    expect(described).toEqual([
      {
        text: "Quelle creme hydratante convient le mieux aux peaux seches ?",
        category: "solution",
        type: "non-branded",
        topic: "creme hydratante visage",
      },
      {
        text: "Lumiere Paris vaut-elle mieux que ses concurrents ?",
        category: "comparative",
        type: "branded",
        topic: null,
      },
      { text: "Quel serum choisir ?", category: "solution", type: "non-branded", topic: "serum vitamine c" },
    ]);
  });
});
