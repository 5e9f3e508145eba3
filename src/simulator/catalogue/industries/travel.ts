import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";

/**
 * A travel agency's catalogue (package holidays, short breaks, cruises, hotels, online booking,
 * customer service, last-minute deals, alternatives), with the gaps live catalogues have: a topic
 * without examples, an empty and a missing text.
 */
export const TRAVEL_TOPICS: Readonly<Record<TopicLanguage, TopicSeed[]>> = {
  en: [
    {
      topic: "vacation packages",
      kind: "product",
      volume: 12100,
      prompts: [
        "Are all-inclusive vacation packages worth it for families?",
        "Does {brand} offer vacation packages with flights from Chicago?",
      ],
    },
    {
      topic: "weekend getaways",
      kind: "product",
      volume: 8100,
      prompts: [
        "Which European cities are best for a long weekend?",
        "Does {brand} have weekend getaways to New York with the flight included?",
      ],
    },
    {
      topic: "cruises",
      kind: "product",
      volume: 9900,
      prompts: ["Which cruise line is best for a first cruise?", "Are drinks included on {brand} cruises?"],
    },
    {
      topic: "hotel stays",
      kind: "product",
      volume: 6600,
      prompts: [
        "How do I find a good hotel near the city center at a fair price?",
        "Can I book just a hotel with {brand}, without a flight?",
      ],
    },
    {
      topic: "online booking",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Which travel sites make it easy to change a booking online?",
        "Can I pay for my {brand} trip in installments?",
      ],
    },
    {
      topic: "customer service",
      kind: "concern",
      volume: 2400,
      prompts: [
        "Which travel agencies can you reach around the clock during a trip?",
        "How do I reach {brand} customer service when my flight is canceled?",
      ],
    },
    {
      topic: "last-minute deals",
      kind: "commerce",
      volume: 5400,
      prompts: [
        "How close to departure can I still get a good last-minute vacation?",
        "Where can I find last-minute deals from {brand}?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 3600,
      prompts: [
        "Which travel agencies are similar to {brand}?",
        "Is {brand} cheaper than booking the flight and hotel separately?",
      ],
    },
    { topic: "travel insurance", kind: "product", volume: 1900, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Does {brand} have a travel agency near me?"] },
    { volume: 880, prompts: ["Can I cancel my {brand} trip free of charge?"] },
  ],
  fr: [
    {
      topic: "séjours tout compris",
      kind: "product",
      volume: 9900,
      prompts: [
        "Les séjours tout compris valent-ils le coup pour une famille ?",
        "{brand} propose-t-il des séjours au départ de Lyon ?",
      ],
    },
    {
      topic: "week-ends en Europe",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quelles villes d'Europe visiter pour un week-end prolongé ?",
        "{brand} propose-t-il des week-ends à Rome avec le vol compris ?",
      ],
    },
    {
      topic: "croisières",
      kind: "product",
      volume: 8100,
      prompts: [
        "Quelle compagnie choisir pour une première croisière ?",
        "Les boissons sont-elles comprises dans les croisières {brand} ?",
      ],
    },
    {
      topic: "hôtels",
      kind: "product",
      volume: 5400,
      prompts: [
        "Comment trouver un bon hôtel en centre-ville à un prix raisonnable ?",
        "Peut-on réserver seulement un hôtel avec {brand}, sans le vol ?",
      ],
    },
    {
      topic: "réservation en ligne",
      kind: "feature",
      volume: 2400,
      prompts: [
        "Quels sites de voyage permettent de modifier facilement une réservation en ligne ?",
        "Peut-on payer un voyage {brand} en plusieurs fois ?",
      ],
    },
    {
      topic: "service client",
      kind: "concern",
      volume: 1900,
      prompts: [
        "Quelles agences de voyage sont joignables à toute heure pendant le séjour ?",
        "Comment joindre le service client {brand} quand un vol est annulé ?",
      ],
    },
    {
      topic: "offres de dernière minute",
      kind: "commerce",
      volume: 4400,
      prompts: [
        "Combien de jours avant le départ trouve-t-on encore de bonnes affaires de dernière minute ?",
        "Où trouver les offres de dernière minute de {brand} ?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 2900,
      prompts: [
        "Quelles agences de voyage ressemblent à {brand} ?",
        "{brand} est-il moins cher que de réserver le vol et l'hôtel séparément ?",
      ],
    },
    { topic: "assurance voyage", kind: "product", volume: 1600, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Y a-t-il une agence {brand} près de chez moi ?"] },
    { volume: 720, prompts: ["Peut-on annuler un voyage {brand} sans frais ?"] },
  ],
  de: [
    {
      topic: "Pauschalreisen",
      kind: "product",
      volume: 14800,
      prompts: [
        "Lohnen sich All-inclusive-Pauschalreisen für Familien?",
        "Bietet {brand} Pauschalreisen mit Abflug ab München an?",
      ],
    },
    {
      topic: "Städtereisen",
      kind: "product",
      volume: 8100,
      prompts: [
        "Welche Städte in Europa eignen sich für ein verlängertes Wochenende?",
        "Gibt es bei {brand} Städtereisen nach Rom mit Flug?",
      ],
    },
    {
      topic: "Kreuzfahrten",
      kind: "product",
      volume: 9900,
      prompts: [
        "Welche Reederei eignet sich für die erste Kreuzfahrt?",
        "Sind Getränke bei den Kreuzfahrten von {brand} inklusive?",
      ],
    },
    {
      topic: "Hotels",
      kind: "product",
      volume: 6600,
      prompts: [
        "Wie finde ich ein gutes Hotel in der Innenstadt zu einem fairen Preis?",
        "Kann ich bei {brand} auch nur ein Hotel ohne Flug buchen?",
      ],
    },
    {
      topic: "Online-Buchung",
      kind: "feature",
      volume: 2400,
      prompts: [
        "Auf welchen Reiseportalen lässt sich eine Buchung online einfach ändern?",
        "Kann ich eine Reise bei {brand} in Raten bezahlen?",
      ],
    },
    {
      topic: "Kundenservice",
      kind: "concern",
      volume: 1900,
      prompts: [
        "Welche Reiseveranstalter sind während der Reise rund um die Uhr erreichbar?",
        "Wie erreiche ich den Kundenservice von {brand}, wenn mein Flug gestrichen wird?",
      ],
    },
    {
      topic: "Last-Minute-Angebote",
      kind: "commerce",
      volume: 5400,
      prompts: [
        "Wie kurzfristig bekommt man noch eine günstige Last-Minute-Reise?",
        "Wo finde ich die Last-Minute-Angebote von {brand}?",
      ],
    },
    {
      topic: "Alternativen",
      kind: "comparison",
      volume: 2900,
      prompts: [
        "Welche Reiseveranstalter sind mit {brand} vergleichbar?",
        "Ist {brand} günstiger, als Flug und Hotel einzeln zu buchen?",
      ],
    },
    { topic: "Reiseversicherungen", kind: "product", volume: 1600, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Gibt es ein Reisebüro von {brand} in meiner Nähe?"] },
    { volume: 720, prompts: ["Kann ich eine Reise bei {brand} kostenlos stornieren?"] },
  ],
  es: [
    {
      topic: "vacaciones todo incluido",
      kind: "product",
      volume: 9900,
      prompts: [
        "¿Merecen la pena las vacaciones todo incluido con niños?",
        "¿Tiene {brand} paquetes de vacaciones con salida desde Madrid?",
      ],
    },
    {
      topic: "escapadas urbanas",
      kind: "product",
      volume: 6600,
      prompts: [
        "¿Qué ciudades europeas son ideales para un puente?",
        "¿Ofrece {brand} escapadas a Roma con el vuelo incluido?",
      ],
    },
    {
      topic: "cruceros",
      kind: "product",
      volume: 8100,
      prompts: [
        "¿Qué naviera es mejor para hacer el primer crucero?",
        "¿Las bebidas están incluidas en los cruceros de {brand}?",
      ],
    },
    {
      topic: "hoteles",
      kind: "product",
      volume: 5400,
      prompts: [
        "¿Cómo encuentro un buen hotel en el centro a un precio razonable?",
        "¿Puedo reservar solo el hotel con {brand}, sin el vuelo?",
      ],
    },
    {
      topic: "reservas online",
      kind: "feature",
      volume: 2400,
      prompts: [
        "¿Qué webs de viajes permiten cambiar una reserva online sin complicaciones?",
        "¿Se puede pagar a plazos un viaje con {brand}?",
      ],
    },
    {
      topic: "atención al cliente",
      kind: "concern",
      volume: 1900,
      prompts: [
        "¿Qué agencias de viajes atienden a cualquier hora durante el viaje?",
        "¿Cómo contacto con la atención al cliente de {brand} si me cancelan el vuelo?",
      ],
    },
    {
      topic: "ofertas de última hora",
      kind: "commerce",
      volume: 4400,
      prompts: [
        "¿Con cuánta antelación conviene reservar un viaje de última hora?",
        "¿Dónde encuentro las ofertas de última hora de {brand}?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 2900,
      prompts: [
        "¿Qué agencias de viajes se parecen a {brand}?",
        "¿Sale más barato {brand} que reservar el vuelo y el hotel por separado?",
      ],
    },
    { topic: "seguros de viaje", kind: "product", volume: 1600, prompts: [] },
    { topic: "", volume: 1900, prompts: ["¿Hay una agencia de {brand} cerca de mí?"] },
    { volume: 720, prompts: ["¿Puedo cancelar gratis un viaje reservado con {brand}?"] },
  ],
  it: [
    {
      topic: "pacchetti vacanza",
      kind: "product",
      volume: 8100,
      prompts: [
        "Le vacanze tutto compreso convengono alle famiglie con bambini?",
        "{brand} offre pacchetti vacanza con partenza da Milano?",
      ],
    },
    {
      topic: "weekend in città",
      kind: "product",
      volume: 5400,
      prompts: [
        "Quali città europee sono perfette per un ponte?",
        "{brand} propone weekend a Parigi con il volo incluso?",
      ],
    },
    {
      topic: "crociere",
      kind: "product",
      volume: 9900,
      prompts: [
        "Quale compagnia scegliere per la prima crociera?",
        "Le bevande sono incluse nelle crociere di {brand}?",
      ],
    },
    {
      topic: "hotel",
      kind: "product",
      volume: 6600,
      prompts: [
        "Come trovo un buon hotel in centro a un prezzo onesto?",
        "Con {brand} posso prenotare solo l'hotel, senza il volo?",
      ],
    },
    {
      topic: "prenotazione online",
      kind: "feature",
      volume: 1900,
      prompts: [
        "Quali siti di viaggi permettono di modificare facilmente una prenotazione online?",
        "Posso pagare a rate un viaggio con {brand}?",
      ],
    },
    {
      topic: "assistenza clienti",
      kind: "concern",
      volume: 1300,
      prompts: [
        "Quali agenzie di viaggio si possono contattare a qualsiasi ora durante il viaggio?",
        "Come contatto l'assistenza clienti di {brand} se mi cancellano il volo?",
      ],
    },
    {
      topic: "offerte last minute",
      kind: "commerce",
      volume: 4400,
      prompts: [
        "Quanto tempo prima della partenza si trovano ancora buone offerte last minute?",
        "Dove trovo le offerte last minute di {brand}?",
      ],
    },
    {
      topic: "alternative",
      kind: "comparison",
      volume: 2400,
      prompts: [
        "Quali agenzie di viaggio sono simili a {brand}?",
        "Conviene {brand} rispetto a prenotare volo e hotel separatamente?",
      ],
    },
    { topic: "assicurazioni di viaggio", kind: "product", volume: 1300, prompts: [] },
    { topic: "", volume: 1600, prompts: ["C'è un'agenzia {brand} vicino a me?"] },
    { volume: 590, prompts: ["Posso cancellare gratis un viaggio prenotato con {brand}?"] },
  ],
  pt: [
    {
      topic: "férias com tudo incluído",
      kind: "product",
      volume: 6600,
      prompts: [
        "As férias com tudo incluído compensam para famílias com crianças?",
        "A {brand} tem pacotes de férias com partida do Porto?",
      ],
    },
    {
      topic: "escapadinhas na Europa",
      kind: "product",
      volume: 4400,
      prompts: [
        "Que cidades europeias são ideais para um fim de semana prolongado?",
        "A {brand} tem escapadinhas a Roma com voo incluído?",
      ],
    },
    {
      topic: "cruzeiros",
      kind: "product",
      volume: 5400,
      prompts: [
        "Que companhia é melhor para fazer um primeiro cruzeiro?",
        "As bebidas estão incluídas nos cruzeiros da {brand}?",
      ],
    },
    {
      topic: "hotéis",
      kind: "product",
      volume: 3600,
      prompts: [
        "Como encontro um bom hotel no centro a um preço justo?",
        "Posso reservar só o hotel com a {brand}, sem o voo?",
      ],
    },
    {
      topic: "reservas online",
      kind: "feature",
      volume: 1600,
      prompts: [
        "Que sites de viagens permitem alterar uma reserva online com facilidade?",
        "Posso pagar uma viagem da {brand} em prestações?",
      ],
    },
    {
      topic: "apoio ao cliente",
      kind: "concern",
      volume: 1000,
      prompts: [
        "Que agências de viagens atendem a qualquer hora durante a viagem?",
        "Como contacto o apoio ao cliente da {brand} se o meu voo for cancelado?",
      ],
    },
    {
      topic: "promoções de última hora",
      kind: "commerce",
      volume: 2900,
      prompts: [
        "Com quanta antecedência ainda se encontram boas viagens de última hora?",
        "Onde encontro as promoções de última hora da {brand}?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 1900,
      prompts: [
        "Que agências de viagens são parecidas com a {brand}?",
        "A {brand} fica mais barata do que reservar o voo e o hotel em separado?",
      ],
    },
    { topic: "seguros de viagem", kind: "product", volume: 880, prompts: [] },
    { topic: "", volume: 1300, prompts: ["Há alguma agência da {brand} perto de mim?"] },
    { volume: 480, prompts: ["Posso cancelar uma viagem da {brand} sem custos?"] },
  ],
  nl: [
    {
      topic: "pakketreizen",
      kind: "product",
      volume: 6600,
      prompts: [
        "Zijn all-inclusive pakketreizen de moeite waard voor gezinnen met kinderen?",
        "Heeft {brand} pakketreizen met vertrek vanaf Eindhoven?",
      ],
    },
    {
      topic: "stedentrips",
      kind: "product",
      volume: 5400,
      prompts: [
        "Welke Europese steden zijn ideaal voor een lang weekend?",
        "Biedt {brand} stedentrips naar Rome inclusief vlucht aan?",
      ],
    },
    {
      topic: "cruises",
      kind: "product",
      volume: 4400,
      prompts: [
        "Welke rederij is het meest geschikt voor een eerste cruise?",
        "Zijn drankjes inbegrepen bij de cruises van {brand}?",
      ],
    },
    {
      topic: "hotels",
      kind: "product",
      volume: 3600,
      prompts: [
        "Hoe vind ik een goed hotel in het centrum voor een redelijke prijs?",
        "Kan ik bij {brand} alleen een hotel boeken, zonder vlucht?",
      ],
    },
    {
      topic: "online boeken",
      kind: "feature",
      volume: 1300,
      prompts: [
        "Op welke reissites kun je een boeking makkelijk online wijzigen?",
        "Kan ik een reis bij {brand} in termijnen betalen?",
      ],
    },
    {
      topic: "klantenservice",
      kind: "concern",
      volume: 880,
      prompts: [
        "Welke reisorganisaties zijn tijdens de reis dag en nacht bereikbaar?",
        "Hoe bereik ik de klantenservice van {brand} als mijn vlucht is geannuleerd?",
      ],
    },
    {
      topic: "last-minute aanbiedingen",
      kind: "commerce",
      volume: 2400,
      prompts: [
        "Hoe kort voor vertrek vind je nog een goede last-minute vakantie?",
        "Waar vind ik de last-minute aanbiedingen van {brand}?",
      ],
    },
    {
      topic: "alternatieven",
      kind: "comparison",
      volume: 1600,
      prompts: [
        "Welke reisorganisaties lijken op {brand}?",
        "Is {brand} goedkoper dan de vlucht en het hotel los boeken?",
      ],
    },
    { topic: "reisverzekeringen", kind: "product", volume: 720, prompts: [] },
    { topic: "", volume: 1300, prompts: ["Is er een reisbureau van {brand} bij mij in de buurt?"] },
    { volume: 390, prompts: ["Kan ik een reis bij {brand} kosteloos annuleren?"] },
  ],
};
