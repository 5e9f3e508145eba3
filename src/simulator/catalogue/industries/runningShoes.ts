import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";

/**
 * A running-shoe brand's catalogue (road, trail, stability and racing shoes, cushioning,
 * durability, sizing and returns, alternatives), with the gaps live catalogues have: a topic
 * without examples, an empty and a missing text.
 */
export const RUNNING_SHOES_TOPICS: Readonly<Record<TopicLanguage, TopicSeed[]>> = {
  en: [
    {
      topic: "road running shoes",
      kind: "product",
      volume: 18100,
      prompts: [
        "Which road running shoes are best for training for a first marathon?",
        "Are {brand} road running shoes good for heavier runners?",
      ],
    },
    {
      topic: "trail running shoes",
      kind: "product",
      volume: 9900,
      prompts: [
        "Which trail running shoes grip best on wet rock?",
        "Does {brand} make a waterproof trail running shoe?",
      ],
    },
    {
      topic: "stability shoes",
      kind: "product",
      volume: 5400,
      prompts: [
        "Which running shoes give the most support for overpronation?",
        "Is the {brand} stability shoe a good choice for flat feet?",
      ],
    },
    {
      topic: "racing shoes",
      kind: "product",
      volume: 6600,
      prompts: [
        "Are carbon-plated racing shoes worth it for amateur runners?",
        "Which {brand} shoe should I wear to race a half marathon?",
      ],
    },
    {
      topic: "cushioning",
      kind: "feature",
      volume: 4400,
      prompts: [
        "Which running shoes have the softest cushioning for long runs?",
        "How many miles does the cushioning in {brand} shoes last?",
      ],
    },
    {
      topic: "durability",
      kind: "concern",
      volume: 2900,
      prompts: [
        "How many miles should a pair of running shoes last?",
        "Do {brand} running shoes wear out quickly?",
      ],
    },
    {
      topic: "sizing and returns",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "Should running shoes be half a size bigger than everyday shoes?",
        "Can I return {brand} shoes after running in them?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 4400,
      prompts: [
        "Which running shoe brands are similar to {brand}?",
        "What are cheaper alternatives to {brand} running shoes?",
      ],
    },
    { topic: "running socks", kind: "product", volume: 1300, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Where can I try on {brand} shoes?"] },
    { volume: 880, prompts: ["Does {brand} offer a gait analysis in store?"] },
  ],
  fr: [
    {
      topic: "chaussures de running sur route",
      kind: "product",
      volume: 12100,
      prompts: [
        "Quelles chaussures de running choisir pour préparer un premier marathon ?",
        "Les chaussures de route {brand} conviennent-elles aux coureurs plus lourds ?",
      ],
    },
    {
      topic: "chaussures de trail",
      kind: "product",
      volume: 8100,
      prompts: [
        "Quelles chaussures de trail accrochent le mieux sur les rochers mouillés ?",
        "{brand} propose-t-il une chaussure de trail imperméable ?",
      ],
    },
    {
      topic: "chaussures stables",
      kind: "product",
      volume: 2900,
      prompts: [
        "Quelles chaussures de running offrent le meilleur maintien en cas de pronation ?",
        "La chaussure stable de {brand} convient-elle aux pieds plats ?",
      ],
    },
    {
      topic: "chaussures de compétition",
      kind: "product",
      volume: 4400,
      prompts: [
        "Les chaussures à plaque carbone valent-elles le coup pour un coureur amateur ?",
        "Quelle chaussure {brand} choisir pour courir un semi-marathon ?",
      ],
    },
    {
      topic: "amorti",
      kind: "feature",
      volume: 3600,
      prompts: [
        "Quelles chaussures de running ont l'amorti le plus confortable pour les sorties longues ?",
        "Combien de kilomètres dure l'amorti des chaussures {brand} ?",
      ],
    },
    {
      topic: "durabilité",
      kind: "concern",
      volume: 1900,
      prompts: [
        "Combien de kilomètres une paire de chaussures de running doit-elle tenir ?",
        "Les chaussures {brand} s'usent-elles vite ?",
      ],
    },
    {
      topic: "tailles et retours",
      kind: "commerce",
      volume: 2400,
      prompts: [
        "Faut-il prendre une demi-pointure de plus pour des chaussures de running ?",
        "Peut-on retourner des chaussures {brand} après avoir couru avec ?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 3600,
      prompts: [
        "Quelles marques de running ressemblent à {brand} ?",
        "Quelles sont les alternatives moins chères aux chaussures {brand} ?",
      ],
    },
    { topic: "chaussettes de running", kind: "product", volume: 880, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Où essayer des chaussures {brand} ?"] },
    { volume: 720, prompts: ["{brand} propose-t-il une analyse de foulée en magasin ?"] },
  ],
  de: [
    {
      topic: "Laufschuhe für die Straße",
      kind: "product",
      volume: 14800,
      prompts: [
        "Welche Laufschuhe eignen sich am besten für den ersten Marathon?",
        "Sind die Laufschuhe von {brand} für schwerere Läufer geeignet?",
      ],
    },
    {
      topic: "Trailschuhe",
      kind: "product",
      volume: 6600,
      prompts: [
        "Welche Trailschuhe haben den besten Grip auf nassem Fels?",
        "Gibt es von {brand} einen wasserdichten Trailschuh?",
      ],
    },
    {
      topic: "Stabilitätsschuhe",
      kind: "product",
      volume: 4400,
      prompts: [
        "Welche Laufschuhe stützen bei Überpronation am besten?",
        "Ist der Stabilitätsschuh von {brand} für Plattfüße geeignet?",
      ],
    },
    {
      topic: "Wettkampfschuhe",
      kind: "product",
      volume: 3600,
      prompts: [
        "Lohnen sich Carbonschuhe für Hobbyläufer?",
        "Welchen Schuh von {brand} sollte ich für einen Halbmarathon nehmen?",
      ],
    },
    {
      topic: "Dämpfung",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Welche Laufschuhe haben die weichste Dämpfung für lange Läufe?",
        "Wie viele Kilometer hält die Dämpfung der Schuhe von {brand}?",
      ],
    },
    {
      topic: "Haltbarkeit",
      kind: "concern",
      volume: 1900,
      prompts: [
        "Nach wie vielen Kilometern sollte man Laufschuhe austauschen?",
        "Nutzen sich die Laufschuhe von {brand} schnell ab?",
      ],
    },
    {
      topic: "Größen und Rückgabe",
      kind: "commerce",
      volume: 2400,
      prompts: [
        "Sollte man Laufschuhe eine halbe Nummer größer kaufen?",
        "Kann ich Schuhe von {brand} zurückgeben, wenn ich schon damit gelaufen bin?",
      ],
    },
    {
      topic: "Alternativen",
      kind: "comparison",
      volume: 2900,
      prompts: [
        "Welche Laufschuhmarken sind mit {brand} vergleichbar?",
        "Welche günstigeren Alternativen zu {brand} gibt es?",
      ],
    },
    { topic: "Laufsocken", kind: "product", volume: 880, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Wo kann ich Schuhe von {brand} anprobieren?"] },
    { volume: 720, prompts: ["Bietet {brand} im Laden eine Laufanalyse an?"] },
  ],
  es: [
    {
      topic: "zapatillas de running para asfalto",
      kind: "product",
      volume: 12100,
      prompts: [
        "¿Qué zapatillas de running son mejores para preparar un primer maratón?",
        "¿Las zapatillas de asfalto de {brand} sirven para corredores de más peso?",
      ],
    },
    {
      topic: "zapatillas de trail",
      kind: "product",
      volume: 6600,
      prompts: [
        "¿Qué zapatillas de trail agarran mejor sobre roca mojada?",
        "¿Tiene {brand} zapatillas de trail impermeables?",
      ],
    },
    {
      topic: "zapatillas de estabilidad",
      kind: "product",
      volume: 3600,
      prompts: [
        "¿Qué zapatillas de running dan más soporte a un corredor pronador?",
        "¿Las zapatillas de estabilidad de {brand} sirven para pies planos?",
      ],
    },
    {
      topic: "zapatillas de competición",
      kind: "product",
      volume: 4400,
      prompts: [
        "¿Merecen la pena las zapatillas con placa de carbono para un corredor popular?",
        "¿Qué modelo de {brand} me recomiendas para correr una media maratón?",
      ],
    },
    {
      topic: "amortiguación",
      kind: "feature",
      volume: 2900,
      prompts: [
        "¿Qué zapatillas tienen la amortiguación más blanda para tiradas largas?",
        "¿Cuántos kilómetros dura la amortiguación de las zapatillas de {brand}?",
      ],
    },
    {
      topic: "durabilidad",
      kind: "concern",
      volume: 1900,
      prompts: [
        "¿Cuántos kilómetros deberían durar unas zapatillas de running?",
        "¿Se desgastan rápido las zapatillas de {brand}?",
      ],
    },
    {
      topic: "tallas y devoluciones",
      kind: "commerce",
      volume: 2400,
      prompts: [
        "¿Hay que comprar las zapatillas de running media talla más grandes?",
        "¿Puedo devolver unas zapatillas de {brand} después de haber corrido con ellas?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 2900,
      prompts: [
        "¿Qué marcas de running se parecen a {brand}?",
        "¿Qué alternativas más baratas a {brand} hay?",
      ],
    },
    { topic: "calcetines de running", kind: "product", volume: 880, prompts: [] },
    { topic: "", volume: 1900, prompts: ["¿Dónde puedo probarme zapatillas de {brand}?"] },
    { volume: 720, prompts: ["¿{brand} hace estudios de la pisada en tienda?"] },
  ],
  it: [
    {
      topic: "scarpe da running su strada",
      kind: "product",
      volume: 9900,
      prompts: [
        "Quali scarpe da running sono le migliori per preparare la prima maratona?",
        "Le scarpe da strada di {brand} vanno bene per i runner più pesanti?",
      ],
    },
    {
      topic: "scarpe da trail",
      kind: "product",
      volume: 5400,
      prompts: [
        "Quali scarpe da trail hanno il miglior grip sulla roccia bagnata?",
        "{brand} fa una scarpa da trail impermeabile?",
      ],
    },
    {
      topic: "scarpe antipronazione",
      kind: "product",
      volume: 2900,
      prompts: [
        "Quali scarpe da running danno più sostegno a chi prona?",
        "La scarpa antipronazione di {brand} va bene per il piede piatto?",
      ],
    },
    {
      topic: "scarpe da gara",
      kind: "product",
      volume: 3600,
      prompts: [
        "Le scarpe con piastra in carbonio valgono la spesa per un amatore?",
        "Quale scarpa di {brand} scegliere per una mezza maratona?",
      ],
    },
    {
      topic: "ammortizzazione",
      kind: "feature",
      volume: 2400,
      prompts: [
        "Quali scarpe da running hanno l'ammortizzazione più morbida per i lunghi?",
        "Quanti chilometri dura l'ammortizzazione delle scarpe {brand}?",
      ],
    },
    {
      topic: "durabilità",
      kind: "concern",
      volume: 1600,
      prompts: [
        "Dopo quanti chilometri vanno cambiate le scarpe da running?",
        "Le scarpe {brand} si consumano in fretta?",
      ],
    },
    {
      topic: "taglie e resi",
      kind: "commerce",
      volume: 1900,
      prompts: [
        "Le scarpe da running vanno prese mezza taglia in più?",
        "Posso restituire le scarpe {brand} dopo averci corso?",
      ],
    },
    {
      topic: "alternative",
      kind: "comparison",
      volume: 2400,
      prompts: [
        "Quali marchi di scarpe da running sono simili a {brand}?",
        "Quali sono le alternative più economiche a {brand}?",
      ],
    },
    { topic: "calze da running", kind: "product", volume: 720, prompts: [] },
    { topic: "", volume: 1600, prompts: ["Dove posso provare le scarpe {brand}?"] },
    { volume: 590, prompts: ["{brand} offre l'analisi del passo in negozio?"] },
  ],
  pt: [
    {
      topic: "sapatilhas de corrida para estrada",
      kind: "product",
      volume: 8100,
      prompts: [
        "Que sapatilhas de corrida são melhores para preparar a primeira maratona?",
        "As sapatilhas de estrada da {brand} servem para corredores mais pesados?",
      ],
    },
    {
      topic: "sapatilhas de trail",
      kind: "product",
      volume: 4400,
      prompts: [
        "Que sapatilhas de trail têm melhor aderência em rocha molhada?",
        "A {brand} tem sapatilhas de trail impermeáveis?",
      ],
    },
    {
      topic: "sapatilhas de estabilidade",
      kind: "product",
      volume: 2400,
      prompts: [
        "Que sapatilhas dão mais apoio a quem faz pronação?",
        "As sapatilhas de estabilidade da {brand} servem para pé chato?",
      ],
    },
    {
      topic: "sapatilhas de competição",
      kind: "product",
      volume: 2900,
      prompts: [
        "As sapatilhas com placa de carbono compensam para um corredor amador?",
        "Que modelo da {brand} devo usar numa meia maratona?",
      ],
    },
    {
      topic: "amortecimento",
      kind: "feature",
      volume: 1900,
      prompts: [
        "Que sapatilhas têm o amortecimento mais macio para treinos longos?",
        "Quantos quilómetros dura o amortecimento das sapatilhas da {brand}?",
      ],
    },
    {
      topic: "durabilidade",
      kind: "concern",
      volume: 1300,
      prompts: [
        "Quantos quilómetros devem durar umas sapatilhas de corrida?",
        "As sapatilhas da {brand} gastam-se depressa?",
      ],
    },
    {
      topic: "tamanhos e devoluções",
      kind: "commerce",
      volume: 1600,
      prompts: [
        "As sapatilhas de corrida devem ser meio número acima?",
        "Posso devolver sapatilhas da {brand} depois de correr com elas?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 1900,
      prompts: [
        "Que marcas de corrida são parecidas com a {brand}?",
        "Quais são as alternativas mais baratas à {brand}?",
      ],
    },
    { topic: "meias de corrida", kind: "product", volume: 590, prompts: [] },
    { topic: "", volume: 1300, prompts: ["Onde posso experimentar sapatilhas da {brand}?"] },
    { volume: 480, prompts: ["A {brand} faz análise da passada em loja?"] },
  ],
  nl: [
    {
      topic: "hardloopschoenen voor de weg",
      kind: "product",
      volume: 6600,
      prompts: [
        "Welke hardloopschoenen zijn het best voor een eerste marathon?",
        "Zijn de wegschoenen van {brand} geschikt voor zwaardere lopers?",
      ],
    },
    {
      topic: "trailschoenen",
      kind: "product",
      volume: 3600,
      prompts: [
        "Welke trailschoenen hebben de beste grip op natte rotsen?",
        "Heeft {brand} een waterdichte trailschoen?",
      ],
    },
    {
      topic: "stabiliteitsschoenen",
      kind: "product",
      volume: 1900,
      prompts: [
        "Welke hardloopschoenen geven de meeste steun bij overpronatie?",
        "Is de stabiliteitsschoen van {brand} geschikt voor platvoeten?",
      ],
    },
    {
      topic: "wedstrijdschoenen",
      kind: "product",
      volume: 2400,
      prompts: [
        "Zijn hardloopschoenen met een carbonplaat de moeite waard voor recreatieve lopers?",
        "Welke schoen van {brand} raad je aan voor een halve marathon?",
      ],
    },
    {
      topic: "demping",
      kind: "feature",
      volume: 1600,
      prompts: [
        "Welke hardloopschoenen hebben de zachtste demping voor lange duurlopen?",
        "Hoeveel kilometer gaat de demping van schoenen van {brand} mee?",
      ],
    },
    {
      topic: "slijtvastheid",
      kind: "concern",
      volume: 880,
      prompts: [
        "Na hoeveel kilometer moet je je hardloopschoenen vervangen?",
        "Slijten de schoenen van {brand} snel?",
      ],
    },
    {
      topic: "maten en retourneren",
      kind: "commerce",
      volume: 1300,
      prompts: [
        "Moet je hardloopschoenen een halve maat groter kopen?",
        "Kan ik schoenen van {brand} terugsturen als ik er al mee heb gelopen?",
      ],
    },
    {
      topic: "alternatieven",
      kind: "comparison",
      volume: 1600,
      prompts: ["Welke hardloopmerken lijken op {brand}?", "Wat zijn goedkopere alternatieven voor {brand}?"],
    },
    { topic: "hardloopsokken", kind: "product", volume: 480, prompts: [] },
    { topic: "", volume: 1300, prompts: ["Waar kan ik schoenen van {brand} passen?"] },
    { volume: 390, prompts: ["Biedt {brand} een loopanalyse in de winkel aan?"] },
  ],
};
