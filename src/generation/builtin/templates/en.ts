import type { PromptTemplate } from "./promptTemplate.ts";

export const EN_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "When it comes to {topic}, which brands do people trust the most?"],
  ["solution", "What would you recommend for {topic} if I want good value for money?"],
  ["task", "How do I make the right choice when it comes to {topic}?"],
  ["comparative", "How do the leading providers compare on {topic}?"],
  ["solution", "Which option is the best this year when it comes to {topic}?"],
  ["informational", "What should I know about {topic} before making a decision?"],
  ["comparative", "In terms of {topic}, what really sets the top brands apart?"],
  ["solution", "For someone just starting out, what is the best choice regarding {topic}?"],
  ["pain_point", "What problems do people run into most often with {topic}?"],
  ["comparative", "How does {brand} compare with its competitors when it comes to {topic}?"],
  ["solution", "Can you suggest a reliable option for {topic} on a moderate budget?"],
  ["task", "Where should I start if I want to learn about {topic}?"],
  ["comparative", "For {topic}, is {brand} a better choice than the alternatives?"],
  ["solution", "Is {brand} a good choice when it comes to {topic}?"],
  ["informational", "What matters most when people talk about {topic}?"],
  ["task", "How can I get the most out of {brand} for {topic}?"],
  ["informational", "What does {brand} offer when it comes to {topic}?"],
  ["pain_point", "What do customers complain about most with {brand} regarding {topic}?"],
];
