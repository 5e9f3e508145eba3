import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";

/**
 * A skin-care brand's catalogue (products, a concern, ingredients, prices, alternatives), with
 * the gaps live catalogues have: a topic without examples, an empty and a missing text.
 */
export const SKIN_CARE_TOPICS: Readonly<Record<TopicLanguage, TopicSeed[]>> = {
  en: [
    {
      topic: "moisturizers",
      kind: "product",
      volume: 14800,
      prompts: [
        "Which moisturizer works best for dry skin in winter?",
        "Is the {brand} moisturizer good for combination skin?",
      ],
    },
    {
      topic: "vitamin c serums",
      kind: "product",
      volume: 9900,
      prompts: [
        "Which vitamin C serum works best on dark spots?",
        "How should I use a vitamin C serum with retinol?",
      ],
    },
    {
      topic: "sunscreens",
      kind: "product",
      volume: 12100,
      prompts: [
        "What is the best sunscreen to wear under makeup every day?",
        "Does {brand} make a mineral sunscreen?",
      ],
    },
    {
      topic: "sensitive skin",
      kind: "concern",
      volume: 6600,
      prompts: [
        "Which skin care brands are safe for sensitive skin?",
        "Is {brand} suitable for skin prone to redness?",
      ],
    },
    {
      topic: "anti-aging creams",
      kind: "product",
      volume: 8100,
      prompts: [
        "Which anti-aging cream actually reduces wrinkles?",
        "At what age should I start using an anti-aging cream?",
      ],
    },
    {
      topic: "ingredients",
      kind: "feature",
      volume: 3600,
      prompts: [
        "Are {brand} products free of parabens and fragrance?",
        "Which ingredients should I avoid in skin care?",
      ],
    },
    {
      topic: "prices and offers",
      kind: "commerce",
      volume: 5400,
      prompts: ["Is {brand} skin care worth the price?", "Where can I buy {brand} at a discount?"],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 4400,
      prompts: [
        "What are cheaper alternatives to {brand} skin care?",
        "Which brands are similar to {brand}?",
      ],
    },
    { topic: "gift sets", kind: "commerce", volume: 1300, prompts: [] },
    { topic: "", volume: 2900, prompts: ["Where can I buy {brand} products?"] },
    { volume: 1000, prompts: ["Does {brand} have physical stores?"] },
  ],
  fr: [
    {
      topic: "crèmes hydratantes",
      kind: "product",
      volume: 12100,
      prompts: [
        "Quelle crème hydratante choisir pour une peau sèche en hiver ?",
        "La crème hydratante {brand} convient-elle aux peaux mixtes ?",
      ],
    },
    {
      topic: "sérums à la vitamine C",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quel sérum à la vitamine C est le plus efficace contre les taches ?",
        "Comment utiliser un sérum à la vitamine C avec du rétinol ?",
      ],
    },
    {
      topic: "crèmes solaires",
      kind: "product",
      volume: 9900,
      prompts: [
        "Quelle crème solaire porter tous les jours sous le maquillage ?",
        "{brand} propose-t-il une crème solaire minérale ?",
      ],
    },
    {
      topic: "peaux sensibles",
      kind: "concern",
      volume: 5400,
      prompts: [
        "Quelles marques de soin conviennent aux peaux sensibles ?",
        "{brand} convient-il aux peaux sujettes aux rougeurs ?",
      ],
    },
    {
      topic: "soins anti-âge",
      kind: "product",
      volume: 8100,
      prompts: ["Quel soin anti-âge réduit vraiment les rides ?", "À quel âge commencer un soin anti-âge ?"],
    },
    {
      topic: "ingrédients",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Les produits {brand} sont-ils sans parabènes ni parfum ?",
        "Quels ingrédients éviter dans les soins du visage ?",
      ],
    },
    {
      topic: "prix et promotions",
      kind: "commerce",
      volume: 4400,
      prompts: ["Les soins {brand} valent-ils leur prix ?", "Où acheter {brand} moins cher ?"],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 3600,
      prompts: [
        "Quelles sont les alternatives moins chères à {brand} ?",
        "Quelles marques ressemblent à {brand} ?",
      ],
    },
    { topic: "coffrets cadeaux", kind: "commerce", volume: 1000, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Où acheter les produits {brand} ?"] },
    { volume: 880, prompts: ["{brand} a-t-il des boutiques physiques ?"] },
  ],
  de: [
    {
      topic: "Feuchtigkeitscremes",
      kind: "product",
      volume: 12100,
      prompts: [
        "Welche Feuchtigkeitscreme hilft im Winter am besten bei trockener Haut?",
        "Eignet sich die Feuchtigkeitscreme von {brand} für Mischhaut?",
      ],
    },
    {
      topic: "Vitamin-C-Seren",
      kind: "product",
      volume: 5400,
      prompts: [
        "Welches Vitamin-C-Serum wirkt am besten gegen Pigmentflecken?",
        "Wie kombiniere ich ein Vitamin-C-Serum mit Retinol?",
      ],
    },
    {
      topic: "Sonnencremes",
      kind: "product",
      volume: 9900,
      prompts: [
        "Welche Sonnencreme eignet sich täglich unter dem Make-up?",
        "Hat {brand} eine mineralische Sonnencreme?",
      ],
    },
    {
      topic: "empfindliche Haut",
      kind: "concern",
      volume: 6600,
      prompts: [
        "Welche Pflegemarken sind für empfindliche Haut geeignet?",
        "Ist {brand} für Haut mit Rötungen geeignet?",
      ],
    },
    {
      topic: "Anti-Aging-Cremes",
      kind: "product",
      volume: 8100,
      prompts: [
        "Welche Anti-Aging-Creme reduziert Falten wirklich?",
        "Ab welchem Alter sollte man eine Anti-Aging-Creme verwenden?",
      ],
    },
    {
      topic: "Inhaltsstoffe",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Sind die Produkte von {brand} frei von Parabenen und Duftstoffen?",
        "Welche Inhaltsstoffe sollte man in der Hautpflege meiden?",
      ],
    },
    {
      topic: "Preise und Angebote",
      kind: "commerce",
      volume: 4400,
      prompts: ["Ist die Pflege von {brand} ihren Preis wert?", "Wo kann ich {brand} günstiger kaufen?"],
    },
    {
      topic: "Alternativen",
      kind: "comparison",
      volume: 3600,
      prompts: [
        "Welche günstigeren Alternativen zu {brand} gibt es?",
        "Welche Marken sind mit {brand} vergleichbar?",
      ],
    },
    { topic: "Geschenksets", kind: "commerce", volume: 880, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Wo kann ich Produkte von {brand} kaufen?"] },
    { volume: 720, prompts: ["Hat {brand} eigene Geschäfte?"] },
  ],
  es: [
    {
      topic: "cremas hidratantes",
      kind: "product",
      volume: 12100,
      prompts: [
        "¿Qué crema hidratante funciona mejor para la piel seca en invierno?",
        "¿La crema hidratante de {brand} sirve para piel mixta?",
      ],
    },
    {
      topic: "sérums de vitamina C",
      kind: "product",
      volume: 6600,
      prompts: [
        "¿Qué sérum de vitamina C funciona mejor contra las manchas?",
        "¿Cómo se combina un sérum de vitamina C con retinol?",
      ],
    },
    {
      topic: "protectores solares",
      kind: "product",
      volume: 9900,
      prompts: [
        "¿Qué protector solar puedo usar a diario debajo del maquillaje?",
        "¿Tiene {brand} un protector solar mineral?",
      ],
    },
    {
      topic: "piel sensible",
      kind: "concern",
      volume: 5400,
      prompts: [
        "¿Qué marcas de cuidado facial son adecuadas para piel sensible?",
        "¿Es {brand} adecuada para pieles con rojeces?",
      ],
    },
    {
      topic: "cremas antiedad",
      kind: "product",
      volume: 8100,
      prompts: [
        "¿Qué crema antiedad reduce de verdad las arrugas?",
        "¿A qué edad conviene empezar con una crema antiedad?",
      ],
    },
    {
      topic: "ingredientes",
      kind: "feature",
      volume: 2900,
      prompts: [
        "¿Los productos de {brand} están libres de parabenos y perfume?",
        "¿Qué ingredientes conviene evitar en el cuidado de la piel?",
      ],
    },
    {
      topic: "precios y ofertas",
      kind: "commerce",
      volume: 4400,
      prompts: ["¿Merece la pena el precio de {brand}?", "¿Dónde puedo comprar {brand} más barato?"],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 3600,
      prompts: ["¿Qué alternativas más baratas a {brand} hay?", "¿Qué marcas se parecen a {brand}?"],
    },
    { topic: "estuches de regalo", kind: "commerce", volume: 880, prompts: [] },
    { topic: "", volume: 2400, prompts: ["¿Dónde se pueden comprar los productos de {brand}?"] },
    { volume: 720, prompts: ["¿Tiene {brand} tiendas físicas?"] },
  ],
  it: [
    {
      topic: "creme idratanti",
      kind: "product",
      volume: 12100,
      prompts: [
        "Quale crema idratante funziona meglio per la pelle secca d'inverno?",
        "La crema idratante di {brand} va bene per la pelle mista?",
      ],
    },
    {
      topic: "sieri alla vitamina C",
      kind: "product",
      volume: 5400,
      prompts: [
        "Quale siero alla vitamina C funziona meglio contro le macchie?",
        "Come si abbina un siero alla vitamina C al retinolo?",
      ],
    },
    {
      topic: "creme solari",
      kind: "product",
      volume: 9900,
      prompts: [
        "Quale crema solare posso usare ogni giorno sotto il trucco?",
        "{brand} ha una crema solare minerale?",
      ],
    },
    {
      topic: "pelle sensibile",
      kind: "concern",
      volume: 6600,
      prompts: [
        "Quali marchi di skincare sono adatti alla pelle sensibile?",
        "{brand} è adatto alla pelle soggetta a rossori?",
      ],
    },
    {
      topic: "creme antietà",
      kind: "product",
      volume: 8100,
      prompts: [
        "Quale crema antietà riduce davvero le rughe?",
        "A che età conviene iniziare con una crema antietà?",
      ],
    },
    {
      topic: "ingredienti",
      kind: "feature",
      volume: 2900,
      prompts: [
        "I prodotti di {brand} sono senza parabeni e profumo?",
        "Quali ingredienti evitare nella cura della pelle?",
      ],
    },
    {
      topic: "prezzi e offerte",
      kind: "commerce",
      volume: 4400,
      prompts: ["I prodotti di {brand} valgono il loro prezzo?", "Dove posso comprare {brand} a meno?"],
    },
    {
      topic: "alternative",
      kind: "comparison",
      volume: 3600,
      prompts: ["Quali sono le alternative più economiche a {brand}?", "Quali marchi sono simili a {brand}?"],
    },
    { topic: "cofanetti regalo", kind: "commerce", volume: 880, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Dove si comprano i prodotti di {brand}?"] },
    { volume: 720, prompts: ["{brand} ha negozi fisici?"] },
  ],
  pt: [
    {
      topic: "cremes hidratantes",
      kind: "product",
      volume: 12100,
      prompts: [
        "Que creme hidratante funciona melhor para pele seca no inverno?",
        "O creme hidratante da {brand} serve para pele mista?",
      ],
    },
    {
      topic: "séruns de vitamina C",
      kind: "product",
      volume: 5400,
      prompts: [
        "Que sérum de vitamina C funciona melhor contra manchas?",
        "Como se combina um sérum de vitamina C com retinol?",
      ],
    },
    {
      topic: "protetores solares",
      kind: "product",
      volume: 9900,
      prompts: [
        "Que protetor solar posso usar todos os dias por baixo da maquilhagem?",
        "A {brand} tem um protetor solar mineral?",
      ],
    },
    {
      topic: "pele sensível",
      kind: "concern",
      volume: 6600,
      prompts: [
        "Que marcas de cuidados de pele são adequadas para pele sensível?",
        "A {brand} é adequada para pele com vermelhidão?",
      ],
    },
    {
      topic: "cremes antienvelhecimento",
      kind: "product",
      volume: 8100,
      prompts: [
        "Que creme antienvelhecimento reduz mesmo as rugas?",
        "Com que idade se deve começar a usar um creme antienvelhecimento?",
      ],
    },
    {
      topic: "ingredientes",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Os produtos da {brand} não têm parabenos nem perfume?",
        "Que ingredientes devo evitar nos produtos de cuidado da pele?",
      ],
    },
    {
      topic: "preços e promoções",
      kind: "commerce",
      volume: 4400,
      prompts: [
        "Os produtos da {brand} valem o preço?",
        "Onde posso comprar produtos da {brand} mais baratos?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 3600,
      prompts: [
        "Quais são as alternativas mais baratas à {brand}?",
        "Que marcas são parecidas com a {brand}?",
      ],
    },
    { topic: "conjuntos de oferta", kind: "commerce", volume: 880, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Onde posso comprar os produtos da {brand}?"] },
    { volume: 720, prompts: ["A {brand} tem lojas físicas?"] },
  ],
  nl: [
    {
      topic: "dagcrèmes",
      kind: "product",
      volume: 9900,
      prompts: [
        "Welke dagcrème werkt het best voor een droge huid in de winter?",
        "Is de dagcrème van {brand} geschikt voor een gecombineerde huid?",
      ],
    },
    {
      topic: "vitamine C-serums",
      kind: "product",
      volume: 4400,
      prompts: [
        "Welk vitamine C-serum werkt het best tegen pigmentvlekken?",
        "Hoe combineer ik een vitamine C-serum met retinol?",
      ],
    },
    {
      topic: "zonnebrandcrèmes",
      kind: "product",
      volume: 8100,
      prompts: [
        "Welke zonnebrandcrème kan ik elke dag onder make-up gebruiken?",
        "Heeft {brand} een minerale zonnebrandcrème?",
      ],
    },
    {
      topic: "gevoelige huid",
      kind: "concern",
      volume: 5400,
      prompts: [
        "Welke huidverzorgingsmerken zijn geschikt voor een gevoelige huid?",
        "Is {brand} geschikt voor een huid met roodheid?",
      ],
    },
    {
      topic: "antirimpelcrèmes",
      kind: "product",
      volume: 6600,
      prompts: [
        "Welke antirimpelcrème vermindert rimpels echt?",
        "Op welke leeftijd begin je met een antirimpelcrème?",
      ],
    },
    {
      topic: "ingrediënten",
      kind: "feature",
      volume: 2400,
      prompts: [
        "Zijn de producten van {brand} vrij van parabenen en parfum?",
        "Welke ingrediënten kun je beter vermijden in huidverzorging?",
      ],
    },
    {
      topic: "prijzen en aanbiedingen",
      kind: "commerce",
      volume: 3600,
      prompts: ["Is {brand} zijn prijs waard?", "Waar koop ik {brand} het voordeligst?"],
    },
    {
      topic: "alternatieven",
      kind: "comparison",
      volume: 2900,
      prompts: ["Wat zijn goedkopere alternatieven voor {brand}?", "Welke merken lijken op {brand}?"],
    },
    { topic: "cadeausets", kind: "commerce", volume: 720, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Waar kan ik producten van {brand} kopen?"] },
    { volume: 590, prompts: ["Heeft {brand} fysieke winkels?"] },
  ],
};
