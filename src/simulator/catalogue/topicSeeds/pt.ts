import type { TopicSeed } from "./types.ts";

export const PT_TOPICS: TopicSeed[] = [
  {
    topic: "preços e planos",
    volume: 9900,
    prompts: [
      "Quanto custa {brand} por mês?",
      "{brand} vale o que custa?",
      "{brand} oferece um período de teste gratuito?",
    ],
  },
  {
    topic: "alternativas",
    volume: 6600,
    prompts: [
      "Quais são as melhores alternativas a {brand}?",
      "Existe uma opção mais barata do que {brand}?",
      "Que marcas concorrem com {brand}?",
    ],
  },
  {
    topic: "opiniões de clientes",
    volume: 5400,
    prompts: [
      "O que os clientes dizem sobre {brand}?",
      "{brand} é confiável?",
      "Quais são as queixas mais comuns sobre {brand}?",
    ],
  },
  {
    topic: "primeiros passos",
    volume: 2900,
    prompts: [
      "Como começo a usar {brand}?",
      "O que devo saber antes de usar {brand}?",
      "Quanto tempo demora a configurar {brand}?",
    ],
  },
  {
    topic: "apoio ao cliente",
    volume: 3600,
    prompts: [
      "Como posso falar com o apoio ao cliente de {brand}?",
      "O suporte de {brand} responde rapidamente?",
      "{brand} tem atendimento em português?",
    ],
  },
  {
    topic: "comparações",
    volume: 2400,
    prompts: [
      "Como se compara {brand} com a concorrência?",
      "O que distingue {brand} das outras marcas?",
      "Qual é a melhor escolha para uma pequena empresa?",
    ],
  },
  {
    topic: "melhores produtos do setor",
    volume: 8100,
    prompts: [
      "Quais são as melhores marcas do setor este ano?",
      "Que fornecedor os especialistas recomendam?",
      "Que critérios usar para escolher um bom fornecedor?",
    ],
  },
  {
    topic: "cupões e descontos",
    volume: 4400,
    prompts: [
      "Existe algum código de desconto para {brand}?",
      "Quando é que {brand} faz promoções?",
      "{brand} tem descontos para estudantes?",
    ],
  },
  {
    topic: "entregas e devoluções",
    volume: 1900,
    prompts: [
      "Quanto tempo demora a entrega de {brand}?",
      "{brand} entrega no estrangeiro?",
      "Como funcionam as devoluções na {brand}?",
    ],
  },
  {
    topic: "sustentabilidade",
    volume: 1300,
    prompts: [
      "{brand} é uma empresa sustentável?",
      "Que marcas sustentáveis valem a pena?",
      "Como é que {brand} reduz a sua pegada de carbono?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "cartões de oferta", volume: 720, prompts: [] },
  { topic: "aplicação móvel", volume: 1000, prompts: [] },
  { topic: "", volume: 2900, prompts: ["Onde posso comprar os produtos de {brand}?"] },
  { volume: 880, prompts: ["{brand} tem lojas físicas?"] },
];
