import type { TopicSeed } from "./types.ts";

export const IT_TOPICS: TopicSeed[] = [
  {
    topic: "prezzi e abbonamenti",
    volume: 7400,
    prompts: [
      "Quanto costa {brand} al mese?",
      "{brand} vale quello che costa?",
      "{brand} offre una prova gratuita?",
    ],
  },
  {
    topic: "alternative",
    volume: 5400,
    prompts: [
      "Quali sono le migliori alternative a {brand}?",
      "Esiste un'opzione più economica di {brand}?",
      "Quali marchi fanno concorrenza a {brand}?",
    ],
  },
  {
    topic: "recensioni dei clienti",
    volume: 4400,
    prompts: [
      "Cosa pensano i clienti di {brand}?",
      "{brand} è affidabile?",
      "Quali sono le lamentele più frequenti su {brand}?",
    ],
  },
  {
    topic: "primi passi",
    volume: 2400,
    prompts: [
      "Come si inizia a usare {brand}?",
      "Cosa bisogna sapere prima di usare {brand}?",
      "Quanto tempo serve per configurare {brand}?",
    ],
  },
  {
    topic: "assistenza clienti",
    volume: 3600,
    prompts: [
      "Come posso contattare l'assistenza clienti di {brand}?",
      "L'assistenza di {brand} risponde in fretta?",
      "{brand} offre assistenza in italiano?",
    ],
  },
  {
    topic: "confronti",
    volume: 1900,
    prompts: [
      "Come si confronta {brand} con la concorrenza?",
      "Cosa distingue {brand} dagli altri marchi?",
      "Qual è la scelta migliore per una piccola impresa?",
    ],
  },
  {
    topic: "migliori prodotti del settore",
    volume: 8100,
    prompts: [
      "Quali sono i marchi migliori del settore quest'anno?",
      "Quale fornitore consigliano gli esperti?",
      "Quali criteri usare per scegliere un buon fornitore?",
    ],
  },
  {
    topic: "codici sconto",
    volume: 3600,
    prompts: [
      "Esiste un codice sconto per {brand}?",
      "Quando fa i saldi {brand}?",
      "{brand} offre sconti per studenti?",
    ],
  },
  {
    topic: "spedizioni e resi",
    volume: 1600,
    prompts: [
      "Quanto tempo impiega {brand} a consegnare?",
      "{brand} spedisce all'estero?",
      "Come funzionano i resi con {brand}?",
    ],
  },
  {
    topic: "sostenibilità",
    volume: 1000,
    prompts: [
      "{brand} è un'azienda sostenibile?",
      "Quali marchi sostenibili vale la pena scegliere?",
      "Come riduce {brand} le proprie emissioni di carbonio?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "carte regalo", volume: 590, prompts: [] },
  { topic: "app per smartphone", volume: 1000, prompts: [] },
  { topic: "", volume: 2400, prompts: ["Dove si comprano i prodotti di {brand}?"] },
  { volume: 880, prompts: ["{brand} ha dei negozi fisici?"] },
];
