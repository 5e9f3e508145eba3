import type { TopicSeed } from "./types.ts";

export const DE_TOPICS: TopicSeed[] = [
  {
    topic: "Preise und Tarife",
    volume: 9900,
    prompts: [
      "Was kostet {brand} im Monat?",
      "Lohnt sich {brand} für den Preis?",
      "Gibt es bei {brand} eine kostenlose Testphase?",
    ],
  },
  {
    topic: "Alternativen",
    volume: 6600,
    prompts: [
      "Was sind die besten Alternativen zu {brand}?",
      "Gibt es eine günstigere Option als {brand}?",
      "Welche Anbieter konkurrieren mit {brand}?",
    ],
  },
  {
    topic: "Erfahrungen und Bewertungen",
    volume: 8100,
    prompts: [
      "Welche Erfahrungen haben Kunden mit {brand}?",
      "Ist {brand} seriös?",
      "Worüber beschweren sich Kunden von {brand} am häufigsten?",
    ],
  },
  {
    topic: "Einstieg",
    volume: 2400,
    prompts: [
      "Wie fange ich mit {brand} an?",
      "Was sollte man vor der Nutzung von {brand} wissen?",
      "Wie lange dauert die Einrichtung von {brand}?",
    ],
  },
  {
    topic: "Kundenservice",
    volume: 3600,
    prompts: [
      "Wie erreiche ich den Kundenservice von {brand}?",
      "Ist der Support von {brand} gut?",
      "Bietet {brand} telefonischen Support an?",
    ],
  },
  {
    topic: "Vergleiche",
    volume: 2900,
    prompts: [
      "Wie schneidet {brand} im Vergleich zur Konkurrenz ab?",
      "Was unterscheidet {brand} von anderen Anbietern?",
      "Welcher Anbieter ist für kleine Unternehmen am besten?",
    ],
  },
  {
    topic: "beste Anbieter der Branche",
    volume: 12100,
    prompts: [
      "Welche Marken sind in dieser Branche aktuell die besten?",
      "Welchen Anbieter empfehlen Experten dieses Jahr?",
      "Worauf sollte man bei der Wahl eines Anbieters achten?",
    ],
  },
  {
    topic: "Gutscheine und Rabatte",
    volume: 4400,
    prompts: [
      "Gibt es einen Gutscheincode für {brand}?",
      "Wann hat {brand} Sale?",
      "Gibt es bei {brand} Rabatt für Studierende?",
    ],
  },
  {
    topic: "Versand und Rückgabe",
    volume: 1900,
    prompts: [
      "Wie lange dauert der Versand bei {brand}?",
      "Liefert {brand} ins Ausland?",
      "Wie funktioniert die Rückgabe bei {brand}?",
    ],
  },
  {
    topic: "Datenschutz",
    volume: 1600,
    prompts: [
      "Sind meine Daten bei {brand} sicher?",
      "Ist {brand} DSGVO-konform?",
      "Wo speichert {brand} Kundendaten?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "Geschenkkarten", volume: 590, prompts: [] },
  { topic: "mobile App", volume: 1000, prompts: [] },
  { topic: "", volume: 2900, prompts: ["Wo kann ich Produkte von {brand} kaufen?"] },
  { volume: 1000, prompts: ["Hat {brand} eigene Geschäfte?"] },
];
