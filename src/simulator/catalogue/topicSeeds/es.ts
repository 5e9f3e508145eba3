import type { TopicSeed } from "./types.ts";

export const ES_TOPICS: TopicSeed[] = [
  {
    topic: "precios y planes",
    volume: 9900,
    prompts: [
      "¿Cuánto cuesta {brand} al mes?",
      "¿Vale la pena pagar por {brand}?",
      "¿{brand} tiene prueba gratuita?",
    ],
  },
  {
    topic: "alternativas",
    volume: 6600,
    prompts: [
      "¿Cuáles son las mejores alternativas a {brand}?",
      "¿Hay una opción más barata que {brand}?",
      "¿Qué marcas compiten con {brand}?",
    ],
  },
  {
    topic: "opiniones",
    volume: 8100,
    prompts: [
      "¿Qué opinan los clientes de {brand}?",
      "¿Es {brand} de confianza?",
      "¿Cuáles son las quejas más comunes sobre {brand}?",
    ],
  },
  {
    topic: "primeros pasos",
    volume: 2400,
    prompts: [
      "¿Cómo empiezo a usar {brand}?",
      "¿Qué debo saber antes de usar {brand}?",
      "¿Cuánto se tarda en configurar {brand}?",
    ],
  },
  {
    topic: "atención al cliente",
    volume: 3600,
    prompts: [
      "¿Cómo contacto con el servicio de atención de {brand}?",
      "¿Es bueno el soporte de {brand}?",
      "¿{brand} atiende en español?",
    ],
  },
  {
    topic: "comparativas",
    volume: 2900,
    prompts: [
      "¿Cómo se compara {brand} con la competencia?",
      "¿Qué diferencia a {brand} de otras marcas?",
      "¿Cuál es la mejor opción para una pyme?",
    ],
  },
  {
    topic: "mejores marcas del sector",
    volume: 12100,
    prompts: [
      "¿Cuáles son las mejores marcas del sector este año?",
      "¿Qué proveedor recomiendan los expertos?",
      "¿Qué hay que tener en cuenta al elegir un proveedor?",
    ],
  },
  {
    topic: "descuentos y cupones",
    volume: 5400,
    prompts: [
      "¿Hay algún código de descuento para {brand}?",
      "¿Cuándo tiene rebajas {brand}?",
      "¿{brand} ofrece descuentos para estudiantes?",
    ],
  },
  {
    topic: "envíos y devoluciones",
    volume: 1900,
    prompts: [
      "¿Cuánto tarda {brand} en entregar?",
      "¿{brand} hace envíos internacionales?",
      "¿Cuál es la política de devoluciones de {brand}?",
    ],
  },
  {
    topic: "sostenibilidad",
    volume: 1300,
    prompts: [
      "¿Es {brand} una empresa sostenible?",
      "¿Qué marcas sostenibles recomiendan?",
      "¿Cómo reduce {brand} su huella de carbono?",
    ],
  },
  // Gaps, as live catalogues have them: topics without example prompts, an empty and a missing text.
  { topic: "tarjetas regalo", volume: 480, prompts: [] },
  { topic: "aplicación móvil", volume: 1300, prompts: [] },
  { topic: "", volume: 2900, prompts: ["¿Dónde se pueden comprar los productos de {brand}?"] },
  { volume: 1000, prompts: ["¿Tiene {brand} tiendas físicas?"] },
];
