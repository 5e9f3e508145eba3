import type { TopicSeed } from "./types.ts";

export const EN_TOPICS: TopicSeed[] = [
  {
    topic: "pricing and plans",
    volume: 12100,
    prompts: [
      "How much does {brand} cost per month?",
      "Is {brand} worth the price?",
      "Does {brand} offer a free trial?",
    ],
  },
  {
    topic: "alternatives",
    volume: 9900,
    prompts: [
      "What are the best alternatives to {brand}?",
      "Is there a cheaper option than {brand}?",
      "Which brands compete with {brand}?",
    ],
  },
  {
    topic: "reviews",
    volume: 8100,
    prompts: [
      "What do customers say about {brand}?",
      "Is {brand} reliable?",
      "What are the most common complaints about {brand}?",
    ],
  },
  {
    topic: "getting started",
    volume: 5400,
    prompts: [
      "How do I get started with {brand}?",
      "What should a beginner know before using {brand}?",
      "How long does it take to set up {brand}?",
    ],
  },
  {
    topic: "customer support",
    volume: 4400,
    prompts: [
      "How can I contact {brand} support?",
      "Does {brand} have good customer service?",
      "How fast does {brand} answer support requests?",
    ],
  },
  {
    topic: "comparisons",
    volume: 3600,
    prompts: [
      "How does {brand} compare to its competitors?",
      "Which is better for a small business, {brand} or a local provider?",
      "What makes {brand} different?",
    ],
  },
  {
    topic: "best products in the category",
    volume: 14800,
    prompts: [
      "What are the best brands in this category right now?",
      "Which provider do experts recommend this year?",
      "What should I look for when choosing a provider?",
    ],
  },
  {
    topic: "discounts and coupons",
    volume: 6600,
    prompts: [
      "Are there any discount codes for {brand}?",
      "When does {brand} run sales?",
      "Does {brand} offer student discounts?",
    ],
  },
  {
    topic: "shipping and delivery",
    volume: 2900,
    prompts: [
      "How long does {brand} take to deliver?",
      "Does {brand} ship internationally?",
      "What is the return policy of {brand}?",
    ],
  },
  {
    topic: "sustainability",
    volume: 1900,
    prompts: [
      "Is {brand} an environmentally friendly company?",
      "Which sustainable brands are worth buying from?",
      "How does {brand} reduce its carbon footprint?",
    ],
  },
  {
    topic: "security and privacy",
    volume: 2400,
    prompts: [
      "Is my data safe with {brand}?",
      "Has {brand} ever had a data breach?",
      "How does {brand} protect customer privacy?",
    ],
  },
  {
    topic: "careers",
    volume: 1300,
    prompts: [
      "Is {brand} a good place to work?",
      "What jobs are open at {brand}?",
      "What is the company culture like at {brand}?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "gift cards", volume: 880, prompts: [] },
  { topic: "mobile apps", volume: 1600, prompts: [] },
  { topic: "", volume: 2900, prompts: ["Where can I buy {brand} products?"] },
  { volume: 1000, prompts: ["Does {brand} have physical stores?"] },
];
