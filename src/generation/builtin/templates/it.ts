import type { PromptTemplate } from "./promptTemplate.ts";

export const IT_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "In fatto di {topic}, di quali marchi ci si fida di più?"],
  ["solution", "Cosa mi consigli in fatto di {topic} per un buon rapporto qualità-prezzo?"],
  ["task", "Come faccio la scelta giusta in fatto di {topic}?"],
  ["comparative", "Come si confrontano i principali fornitori in fatto di {topic}?"],
  ["solution", "Qual è l'opzione migliore quest'anno in fatto di {topic}?"],
  ["informational", "Cosa bisogna sapere su {topic} prima di decidere?"],
  ["comparative", "Per quanto riguarda {topic}, cosa distingue davvero i grandi marchi?"],
  ["solution", "Per chi inizia, qual è la scelta migliore per quanto riguarda {topic}?"],
  ["pain_point", "Quali problemi si incontrano più spesso in fatto di {topic}?"],
  ["comparative", "Come si posiziona {brand} rispetto ai concorrenti in fatto di {topic}?"],
  ["solution", "Mi puoi consigliare un'opzione affidabile per {topic} con un budget medio?"],
  ["task", "Da dove comincio se voglio informarmi su {topic}?"],
  ["comparative", "Per {topic}, conviene scegliere {brand} o un concorrente?"],
  ["solution", "Secondo te {brand} è una buona scelta in fatto di {topic}?"],
  ["informational", "Che cosa conta davvero quando si parla di {topic}?"],
  ["task", "Come posso sfruttare al meglio {brand} per quanto riguarda {topic}?"],
  ["informational", "Cosa offre {brand} in fatto di {topic}?"],
  ["pain_point", "Di cosa si lamentano di più i clienti di {brand} per quanto riguarda {topic}?"],
];
