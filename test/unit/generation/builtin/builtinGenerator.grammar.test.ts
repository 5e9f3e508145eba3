import { beforeAll, describe, expect, it } from "vitest";

import { createBuiltinGenerator, templatesFor } from "../../../../src/generation/builtin/builtinGenerator.ts";
import { applyGrammar } from "../../../../src/generation/builtin/grammar/index.ts";
import { TEMPLATES_BY_LANGUAGE } from "../../../../src/generation/builtin/templates/index.ts";
import { inferTopicKind, TOPIC_KINDS } from "../../../../src/generation/builtin/topicKinds.ts";
import type { PromptGenerator } from "../../../../src/generation/promptGenerator.ts";
import { createLanguageValidator } from "../../../../src/generation/validation/languageValidator.ts";
import type { TopicLanguage } from "../../../../src/simulator/catalogue/countries.ts";
import { INDUSTRIES, industryTopics } from "../../../../src/simulator/catalogue/industries/industries.ts";
import { MARKETS, simulatedRequest } from "../../../support/generationFixtures.ts";

/**
 * The grammar rules of the builtin generator's output, per language, as defect patterns: a filled
 * template (and anything the generator ships) must match none. Each language also lists the
 * framings its topic slot may follow — framings that take a bare noun phrase, so no article,
 * gender, number or case has to agree with the topic.
 */
interface LanguageRules {
  /** What may come right before `{topic}` in a template. */
  slotFramings: readonly string[];
  /** Topics of each shape the rules must survive: vowel-initial, plural, multi-word, … */
  topics: readonly string[];
  /** Brands that start with a vowel exercise elision on the brand slot too. */
  brand: string;
  defects: readonly [rule: string, pattern: RegExp][];
}

const FRENCH_VOWEL = "[aàâäeéèêëiîïoôöuùûüyœæ]";

const RULES: Record<string, LanguageRules> = {
  en: {
    slotFramings: [
      "when it comes to",
      "compare on",
      "about",
      "in terms of",
      "for",
      "with",
      "regarding",
      "on",
    ],
    topics: [
      "alternatives",
      "eye creams",
      "customer support",
      "shipping and delivery",
      "online booking",
      "mobile apps",
      "account setup",
    ],
    brand: "Aurora",
    defects: [
      ["'a' before a vowel sound", /\ba [aeiou]/i],
      [
        "a bare singular count noun after a framing",
        /\b(about|for|on|with) (mobile app|gift card|coupon code)\b(?!s)/i,
      ],
      [
        "a template sentence around a comparison topic",
        /\b(out of|for|about|on) (alternatives|comparisons)\b/i,
      ],
    ],
  },
  fr: {
    slotFramings: ["en matière de", "côté"],
    topics: [
      "avis clients",
      "engagement écologique",
      "hydratation",
      "abonnements",
      "codes promo",
      "huile de soin",
      "application mobile",
      "hausse des prix",
    ],
    brand: "Orée",
    defects: [
      [
        "no elision of de/que/le/la before a vowel or mute h",
        new RegExp(`(^|[\\s'’])(de|que|le|la) ${FRENCH_VOWEL}`, "iu"),
      ],
      ["no elision before a mute h", /(^|\s)(de|que|le|la) h(uile|ydrat|abit|ôtel|iver|orair|umid)/iu],
      ["de le / de les / à le / à les uncontracted", /\b(de|à) (le|les)\b/iu],
      ["'en matière de' followed by an article", /en matière (de|d') ?(le|la|les|l')\b/iu],
      ["'pour' before a bare plural noun", /\bpour (codes|avis|cartes|prix|offres|soins|produits)\b/iu],
    ],
  },
  de: {
    slotFramings: ["beim Thema", "zum Thema"],
    topics: [
      "Alternativen",
      "Erfahrungen und Bewertungen",
      "Augencreme",
      "Versand und Rückgabe",
      "Laufschuhe",
      "mobile App",
      "Kundenservice",
    ],
    brand: "Aurora",
    defects: [
      [
        "an inflected superlative without article",
        /(?<!\b(die|der|das|den|dem|des|am|ihre|seine)\s)\bbesten? \p{Lu}/u,
      ],
      ["a topic after a preposition that needs case agreement", /\b(um|über|für|mit) (beste|mobile|neue)\b/u],
    ],
  },
  es: {
    slotFramings: ["en materia de"],
    topics: [
      "alternativas",
      "opiniones",
      "atención al cliente",
      "envíos y devoluciones",
      "hidratación",
      "aplicación móvil",
    ],
    brand: "Aurora",
    defects: [
      ["de el / a el uncontracted", /\b(de|a) el\b/iu],
      ["'para' before a bare plural noun", /\bpara (opiniones|cupones|descuentos|tarjetas|envíos)\b/iu],
    ],
  },
  it: {
    slotFramings: ["in fatto di"],
    topics: [
      "alternative",
      "assistenza clienti",
      "app per smartphone",
      "ombretti",
      "idratazione",
      "offerte e sconti",
    ],
    brand: "Aurora",
    defects: [
      [
        "no elision of lo/la/una/… before a vowel",
        /(^|\s)(lo|la|una|della|dello|nella|alla|sulla|dalla) [aàeèéiìoòuù]/iu,
      ],
      ["di + article uncontracted", /\bdi (il|lo|la|i|gli|le)\b/iu],
    ],
  },
  pt: {
    slotFramings: ["em termos de", "em matéria de"],
    topics: [
      "alternativas",
      "opiniões de clientes",
      "apoio ao cliente",
      "entregas e devoluções",
      "hidratação",
      "aplicação móvel",
    ],
    brand: "Aurora",
    defects: [["de/em + article uncontracted", /\b(de|em) (o|a|os|as)\b/iu]],
  },
  nl: {
    slotFramings: ["op het gebied van", "het onderwerp"],
    topics: [
      "alternatieven",
      "klantbeoordelingen",
      "verzending en retourneren",
      "oogcrème",
      "hardloopschoenen",
      "mobiele apps",
      "klantenservice",
    ],
    brand: "Aurora",
    defects: [
      ["a verb phrase in a noun slot", /op het gebied van aan de slag/iu],
      ["a bare singular count noun after a framing", /op het gebied van mobiele app\b(?!s)/iu],
    ],
  },
};

function defectsIn(text: string, language: string): string[] {
  return RULES[language]!.defects.filter(([, pattern]) => pattern.test(text)).map(([rule]) => rule);
}

describe.each(Object.keys(TEMPLATES_BY_LANGUAGE))("builtin templates, %s", (language) => {
  const rules = RULES[language]!;

  it("has rules for the language", () => {
    expect(rules).toBeDefined();
  });

  it("puts the topic slot only after a framing that takes a bare noun phrase", () => {
    for (const { text } of TEMPLATES_BY_LANGUAGE[language]!) {
      const before = text.split("{topic}")[0]!;
      if (before === text) continue;
      const framed = rules.slotFramings.some((framing) =>
        before.toLowerCase().trimEnd().endsWith(framing.toLowerCase()),
      );
      expect(framed, text).toBe(true);
    }
  });

  it("fills every template with topics of each shape without a grammar defect", () => {
    for (const template of TEMPLATES_BY_LANGUAGE[language]!) {
      const fitting = rules.topics.filter((topic) => template.kinds.includes(inferTopicKind(topic)));
      expect(fitting.length, `no test topic of the kinds of: ${template.text}`).toBeGreaterThan(0);
      for (const topic of fitting) {
        const filled = applyGrammar(
          template.text.replaceAll("{topic}", topic).replaceAll("{brand}", rules.brand),
          language,
        );
        expect(defectsIn(filled, language), filled).toEqual([]);
      }
    }
  });

  it.each(INDUSTRIES)(
    "fills every template with every topic of the %s catalogue without a grammar defect",
    (industry) => {
      const topics = industryTopics(industry, language as TopicLanguage).flatMap((seed) =>
        seed.topic ? [seed.topic] : [],
      );
      expect(topics.length).toBeGreaterThanOrEqual(8);
      for (const topic of topics) {
        const fitting = TEMPLATES_BY_LANGUAGE[language]!.filter((template) =>
          template.kinds.includes(inferTopicKind(topic)),
        );
        expect(fitting.length, `no template for ${topic}`).toBeGreaterThanOrEqual(5);
        for (const template of fitting) {
          const filled = applyGrammar(
            template.text.replaceAll("{topic}", topic).replaceAll("{brand}", rules.brand),
            language,
          );
          expect(defectsIn(filled, language), filled).toEqual([]);
        }
      }
    },
  );

  it("has templates for every topic kind", () => {
    for (const kind of TOPIC_KINDS)
      expect(templatesFor(language, kind).length, kind).toBeGreaterThanOrEqual(5);
  });
});

describe("the rules catch the defects they name", () => {
  it.each([
    ["fr", "En matière de avis clients, quelles marques inspirent le plus confiance ?"],
    ["fr", "En matière de engagement écologique, que faut-il savoir ?"],
    ["fr", "Pouvez-vous me recommander une option fiable pour codes promo ?"],
    ["fr", "Que pensent les clients de le service ?"],
    ["de", "Wenn es um beste Anbieter der Branche geht, wem vertraut man?"],
    ["en", "What matters most when people talk about mobile app?"],
    ["en", "How can I get the most out of Lumiere for alternatives?"],
    ["es", "¿Me puedes recomendar una opción fiable para opiniones?"],
    ["it", "Come si usa la app di Lumiere?"],
    ["pt", "O que dizem os clientes de o serviço?"],
  ])("%s: %s", (language, text) => {
    expect(defectsIn(text, language)).not.toEqual([]);
  });

  it("elides and contracts in French and Italian", () => {
    expect(applyGrammar("en matière de avis et de hydratation, que Orée offre-t-il ?", "fr")).toBe(
      "en matière d'avis et d'hydratation, qu'Orée offre-t-il ?",
    );
    expect(applyGrammar("à le sujet de le prix et de les offres", "fr")).toBe(
      "au sujet du prix et des offres",
    );
    expect(applyGrammar("Quels sont les effets de la hausse de les prix ?", "fr")).toBe(
      "Quels sont les effets de la hausse des prix ?",
    );
    expect(applyGrammar("una offerta e la app", "it")).toBe("un'offerta e l'app");
    expect(applyGrammar("Quali sono le alternative a Aurora e Enel?", "it")).toBe(
      "Quali sono le alternative ad Aurora ed Enel?",
    );
  });
});

describe("kinds", () => {
  it.each([
    ["alternatives", "comparison"],
    ["alternatieven", "comparison"],
    ["cartes cadeaux", "commerce"],
    ["tarjetas regalo", "commerce"],
    ["avis clients", "comparison"],
    ["beste Anbieter der Branche", "comparison"],
    ["pricing and plans", "commerce"],
    ["codes promo", "commerce"],
    ["Versand und Rückgabe", "commerce"],
    ["customer support", "concern"],
    ["engagement écologique", "concern"],
    ["mobile apps", "feature"],
    ["getting started", "feature"],
    ["running shoes", "product"],
    ["peaux sensibles", "concern"],
    ["ingrédients", "feature"],
    ["prix et promotions", "commerce"],
    ["Vitamin-C-Seren", "product"],
    ["crème hydratante visage", "product"],
  ])("%s is a %s topic", (topic, kind) => {
    expect(inferTopicKind(topic)).toBe(kind);
  });
});

describe("the generator's whole output has no known grammar defect", () => {
  let builtin: PromptGenerator;
  beforeAll(async () => {
    const validator = await createLanguageValidator();
    builtin = createBuiltinGenerator({ languageValidator: async () => validator });
  });

  const BRANDS = [
    { domain: "lumiere.example", brand: "Lumiere" },
    { domain: "aurore-skincare.example", brand: "Aurore" },
    { domain: "swiftrun.example", brand: "Swiftrun" },
    { domain: "nimbussoft.example", brand: "Nimbussoft" },
    { domain: "harbor-bank.example", brand: "Harbor Bank" },
    { domain: "orizon-travel.example", brand: "Orizon" },
  ];
  it.each(MARKETS.flatMap((market) => BRANDS.map((brand) => ({ ...market, ...brand }))))(
    "$language, $brand",
    async ({ language, country, domain, brand }) => {
      const response = await builtin.generate(
        simulatedRequest({ language, country }, { domain, brand, count: 50 }),
      );
      expect(response.ship_summary.verdict).toBe("ship");
      for (const { prompt } of response.prompts) expect(defectsIn(prompt, language), prompt).toEqual([]);
    },
  );
});
