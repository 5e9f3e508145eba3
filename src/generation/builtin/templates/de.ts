import type { PromptTemplate } from "./promptTemplate.ts";

export const DE_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "Wenn es um {topic} geht, welchen Marken vertrauen die Leute am meisten?"],
  ["solution", "Was würdest du mir beim Thema {topic} für ein gutes Preis-Leistungs-Verhältnis empfehlen?"],
  ["task", "Wie treffe ich beim Thema {topic} die richtige Entscheidung?"],
  ["comparative", "Wie schneiden die wichtigsten Anbieter beim Thema {topic} im Vergleich ab?"],
  ["solution", "Welche Option ist dieses Jahr beim Thema {topic} die beste?"],
  ["informational", "Was sollte man über {topic} wissen, bevor man sich entscheidet?"],
  ["comparative", "Was unterscheidet beim Thema {topic} die großen Marken wirklich voneinander?"],
  ["solution", "Was ist für Einsteiger beim Thema {topic} die beste Wahl?"],
  ["pain_point", "Welche Probleme treten beim Thema {topic} am häufigsten auf?"],
  ["comparative", "Wie schlägt sich {brand} beim Thema {topic} im Vergleich zur Konkurrenz?"],
  ["solution", "Kannst du mir beim Thema {topic} eine zuverlässige Lösung mit mittlerem Budget empfehlen?"],
  ["task", "Wo fange ich am besten an, wenn ich mich über {topic} informieren will?"],
  ["comparative", "Ist {brand} beim Thema {topic} die bessere Wahl als die Alternativen?"],
  ["solution", "Ist {brand} beim Thema {topic} eine gute Wahl?"],
  ["informational", "Worauf kommt es beim Thema {topic} wirklich an?"],
  ["task", "Wie hole ich beim Thema {topic} das Beste aus {brand} heraus?"],
  ["informational", "Was bietet {brand} beim Thema {topic} an?"],
  ["pain_point", "Worüber beschweren sich Kunden von {brand} beim Thema {topic} am häufigsten?"],
];
