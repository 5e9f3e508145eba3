import type { PromptTemplate } from "./promptTemplate.ts";

export const PT_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "Em termos de {topic}, em que marcas as pessoas mais confiam?"],
  ["solution", "O que me recomenda em termos de {topic} com uma boa relação qualidade-preço?"],
  ["task", "Como faço a escolha certa em termos de {topic}?"],
  ["comparative", "Como se comparam os principais fornecedores em termos de {topic}?"],
  ["solution", "Qual é a melhor opção este ano em termos de {topic}?"],
  ["informational", "O que é preciso saber sobre {topic} antes de decidir?"],
  ["comparative", "No que diz respeito a {topic}, o que distingue realmente as grandes marcas?"],
  ["solution", "Para iniciantes, qual é a melhor escolha em termos de {topic}?"],
  ["pain_point", "Que problemas surgem com mais frequência em termos de {topic}?"],
  ["comparative", "Como se compara {brand} com os concorrentes em termos de {topic}?"],
  ["solution", "Pode recomendar uma opção confiável para {topic} com um orçamento médio?"],
  ["task", "Por onde começo se quiser saber mais sobre {topic}?"],
  ["comparative", "Para {topic}, vale mais a pena escolher {brand} ou um concorrente?"],
  ["solution", "{brand} é uma boa escolha em termos de {topic}?"],
  ["informational", "O que conta mesmo quando se fala de {topic}?"],
  ["task", "Como aproveito ao máximo {brand} em termos de {topic}?"],
  ["informational", "O que oferece {brand} em termos de {topic}?"],
  ["pain_point", "Do que se queixam mais os clientes de {brand} em termos de {topic}?"],
];
