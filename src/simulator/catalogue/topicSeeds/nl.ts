import type { TopicSeed } from "./types.ts";

export const NL_TOPICS: TopicSeed[] = [
  {
    topic: "prijzen en abonnementen",
    volume: 6600,
    prompts: [
      "Hoeveel kost {brand} per maand?",
      "Is {brand} zijn prijs waard?",
      "Biedt {brand} een gratis proefperiode aan?",
    ],
  },
  {
    topic: "alternatieven",
    volume: 4400,
    prompts: [
      "Wat zijn de beste alternatieven voor {brand}?",
      "Is er een goedkopere optie dan {brand}?",
      "Welke merken concurreren met {brand}?",
    ],
  },
  {
    topic: "klantbeoordelingen",
    volume: 3600,
    prompts: [
      "Wat vinden klanten van {brand}?",
      "Is {brand} betrouwbaar?",
      "Wat zijn de meest gehoorde klachten over {brand}?",
    ],
  },
  {
    topic: "installatie en eerste gebruik",
    volume: 1900,
    prompts: [
      "Hoe begin ik met {brand}?",
      "Wat moet ik weten voordat ik {brand} ga gebruiken?",
      "Hoe lang duurt het om {brand} in te stellen?",
    ],
  },
  {
    topic: "klantenservice",
    volume: 2900,
    prompts: [
      "Hoe neem ik contact op met de klantenservice van {brand}?",
      "Reageert de klantenservice van {brand} snel?",
      "Heeft {brand} een Nederlandstalige helpdesk?",
    ],
  },
  {
    topic: "vergelijkingen",
    volume: 1600,
    prompts: [
      "Hoe verhoudt {brand} zich tot de concurrentie?",
      "Waarin onderscheidt {brand} zich van andere merken?",
      "Wat is de beste keuze voor een klein bedrijf?",
    ],
  },
  {
    topic: "beste producten in de branche",
    volume: 5400,
    prompts: [
      "Wat zijn dit jaar de beste merken in de branche?",
      "Welke leverancier raden experts aan?",
      "Waar let je op bij het kiezen van een goede leverancier?",
    ],
  },
  {
    topic: "kortingscodes",
    volume: 2900,
    prompts: [
      "Bestaat er een kortingscode voor {brand}?",
      "Wanneer heeft {brand} uitverkoop?",
      "Geeft {brand} studentenkorting?",
    ],
  },
  {
    topic: "verzending en retourneren",
    volume: 1300,
    prompts: [
      "Hoe snel levert {brand}?",
      "Verzendt {brand} ook naar het buitenland?",
      "Hoe werkt retourneren bij {brand}?",
    ],
  },
  {
    topic: "duurzaamheid",
    volume: 880,
    prompts: [
      "Is {brand} een duurzaam bedrijf?",
      "Welke duurzame merken zijn de moeite waard?",
      "Hoe verkleint {brand} zijn CO2-uitstoot?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "cadeaubonnen", volume: 480, prompts: [] },
  { topic: "mobiele apps", volume: 720, prompts: [] },
  { topic: "", volume: 1900, prompts: ["Waar kan ik producten van {brand} kopen?"] },
  { volume: 590, prompts: ["Heeft {brand} fysieke winkels?"] },
];
