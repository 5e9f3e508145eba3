import type { PromptTemplate } from "./promptTemplate.ts";

export const FR_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "En matière de {topic}, quelles marques inspirent le plus confiance ?"],
  ["solution", "Que me conseillez-vous en matière de {topic} pour un bon rapport qualité-prix ?"],
  ["task", "Comment faire le bon choix en matière de {topic} ?"],
  ["comparative", "Comment se comparent les principaux acteurs en matière de {topic} ?"],
  ["solution", "Quelle est la meilleure option cette année en matière de {topic} ?"],
  ["informational", "Que faut-il savoir en matière de {topic} avant de se décider ?"],
  ["comparative", "Côté {topic}, qu'est-ce qui distingue vraiment les grandes marques ?"],
  ["solution", "Quand on débute, quel est le meilleur choix côté {topic} ?"],
  ["pain_point", "Quels problèmes rencontre-t-on le plus souvent en matière de {topic} ?"],
  ["comparative", "Comment se situe {brand} face à ses concurrents en matière de {topic} ?"],
  ["solution", "Pouvez-vous me recommander une option fiable pour {topic} avec un budget moyen ?"],
  ["task", "Par où commencer quand on veut en savoir plus sur {topic} ?"],
  ["comparative", "Pour {topic}, vaut-il mieux choisir {brand} ou un concurrent ?"],
  ["solution", "Est-ce que {brand} est un bon choix en matière de {topic} ?"],
  ["informational", "Qu'est-ce qui compte le plus quand on parle de {topic} ?"],
  ["task", "Comment tirer le meilleur parti de {brand} côté {topic} ?"],
  ["informational", "Que propose {brand} en matière de {topic} ?"],
  ["pain_point", "De quoi les clients de {brand} se plaignent-ils le plus côté {topic} ?"],
];
