import type { PromptTemplate } from "./promptTemplate.ts";

export const NL_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "Als het om {topic} gaat, welke merken vertrouwen mensen het meest?"],
  ["solution", "Wat raad je me aan op het gebied van {topic} voor een goede prijs-kwaliteitverhouding?"],
  ["task", "Hoe maak ik de juiste keuze als het om {topic} gaat?"],
  ["comparative", "Hoe verhouden de belangrijkste aanbieders zich op het gebied van {topic}?"],
  ["solution", "Wat is dit jaar de beste optie op het gebied van {topic}?"],
  ["informational", "Wat moet je weten over {topic} voordat je een beslissing neemt?"],
  ["comparative", "Wat onderscheidt de grote merken echt van elkaar op het gebied van {topic}?"],
  ["solution", "Wat is voor beginners de beste keuze als het om {topic} gaat?"],
  ["pain_point", "Welke problemen komen het vaakst voor bij {topic}?"],
  ["comparative", "Hoe doet {brand} het op het gebied van {topic} vergeleken met de concurrentie?"],
  ["solution", "Kun je een betrouwbare optie voor {topic} met een gemiddeld budget aanraden?"],
  ["task", "Waar begin ik als ik meer wil weten over {topic}?"],
  ["comparative", "Is {brand} voor {topic} een betere keuze dan de alternatieven?"],
  ["solution", "Is {brand} een goede keuze als het om {topic} gaat?"],
  ["informational", "Waar draait het echt om bij {topic}?"],
  ["task", "Hoe haal ik het meeste uit {brand} op het gebied van {topic}?"],
  ["informational", "Wat biedt {brand} op het gebied van {topic}?"],
  ["pain_point", "Waarover klagen klanten van {brand} het meest als het om {topic} gaat?"],
];
