import type { PromptTemplate } from "./promptTemplate.ts";

export const ES_TEMPLATES: readonly PromptTemplate[] = [
  ["comparative", "En cuanto a {topic}, ¿qué marcas inspiran más confianza?"],
  ["solution", "¿Qué me recomiendas en cuanto a {topic} con una buena relación calidad-precio?"],
  ["task", "¿Cómo acierto al elegir en cuanto a {topic}?"],
  ["comparative", "¿Cómo se comparan los principales proveedores en cuanto a {topic}?"],
  ["solution", "¿Cuál es la mejor opción este año en cuanto a {topic}?"],
  ["informational", "¿Qué conviene saber sobre {topic} antes de decidirse?"],
  ["comparative", "En cuanto a {topic}, ¿qué diferencia de verdad a las grandes marcas?"],
  ["solution", "Para alguien que empieza, ¿cuál es la mejor elección en cuanto a {topic}?"],
  ["pain_point", "¿Qué problemas son los más habituales en cuanto a {topic}?"],
  ["comparative", "¿Cómo se compara {brand} con sus competidores en cuanto a {topic}?"],
  ["solution", "¿Me puedes recomendar una opción fiable para {topic} con un presupuesto medio?"],
  ["task", "¿Por dónde empiezo si quiero informarme sobre {topic}?"],
  ["comparative", "Para {topic}, ¿es {brand} mejor opción que las alternativas?"],
  ["solution", "¿Es {brand} una buena opción en cuanto a {topic}?"],
  ["informational", "¿Qué es lo que más importa cuando se habla de {topic}?"],
  ["task", "¿Cómo saco el máximo partido a {brand} en cuanto a {topic}?"],
  ["informational", "¿Qué ofrece {brand} en cuanto a {topic}?"],
  ["pain_point", "¿De qué se quejan más los clientes de {brand} en cuanto a {topic}?"],
];
