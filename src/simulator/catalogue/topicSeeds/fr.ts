import type { TopicSeed } from "./types.ts";

export const FR_TOPICS: TopicSeed[] = [
  {
    topic: "prix et abonnements",
    volume: 8100,
    prompts: [
      "Combien coûte {brand} par mois ?",
      "Est-ce que {brand} vaut son prix ?",
      "{brand} propose-t-il un essai gratuit ?",
    ],
  },
  {
    topic: "alternatives",
    volume: 6600,
    prompts: [
      "Quelles sont les meilleures alternatives à {brand} ?",
      "Existe-t-il une option moins chère que {brand} ?",
      "Quels sont les concurrents de {brand} ?",
    ],
  },
  {
    topic: "avis clients",
    volume: 5400,
    prompts: [
      "Que pensent les clients de {brand} ?",
      "{brand} est-il fiable ?",
      "Quelles sont les plaintes les plus fréquentes sur {brand} ?",
    ],
  },
  {
    topic: "prise en main",
    volume: 2900,
    prompts: [
      "Comment débuter avec {brand} ?",
      "Que faut-il savoir avant d'utiliser {brand} ?",
      "Combien de temps faut-il pour configurer {brand} ?",
    ],
  },
  {
    topic: "service client",
    volume: 3600,
    prompts: [
      "Comment contacter le service client de {brand} ?",
      "Le support de {brand} est-il réactif ?",
      "{brand} répond-il en français ?",
    ],
  },
  {
    topic: "comparatifs",
    volume: 2400,
    prompts: [
      "Comment {brand} se compare-t-il à la concurrence ?",
      "Qu'est-ce qui distingue {brand} des autres ?",
      "Quel est le meilleur choix pour une PME ?",
    ],
  },
  {
    topic: "meilleurs produits du secteur",
    volume: 9900,
    prompts: [
      "Quelles sont les meilleures marques du secteur cette année ?",
      "Quel fournisseur les experts recommandent-ils ?",
      "Quels critères pour bien choisir un fournisseur ?",
    ],
  },
  {
    topic: "codes promo",
    volume: 4400,
    prompts: [
      "Existe-t-il un code promo pour {brand} ?",
      "Quand {brand} fait-il des soldes ?",
      "{brand} propose-t-il des réductions étudiantes ?",
    ],
  },
  {
    topic: "livraison et retours",
    volume: 1900,
    prompts: [
      "Quel est le délai de livraison de {brand} ?",
      "{brand} livre-t-il à l'étranger ?",
      "Quelle est la politique de retour de {brand} ?",
    ],
  },
  {
    topic: "engagement écologique",
    volume: 1300,
    prompts: [
      "{brand} est-elle une entreprise responsable ?",
      "Quelles marques écologiques recommander ?",
      "Comment {brand} réduit-elle son empreinte carbone ?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "cartes cadeaux", volume: 720, prompts: [] },
  { topic: "application mobile", volume: 1300, prompts: [] },
  { topic: "", volume: 2900, prompts: ["Où acheter les produits {brand} ?"] },
  { volume: 1000, prompts: ["{brand} a-t-il des boutiques physiques ?"] },
];
