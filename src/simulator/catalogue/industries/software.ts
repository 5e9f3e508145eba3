import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";

/**
 * A business-software vendor's catalogue (project management, CRM, invoicing, integrations, data
 * security, pricing, support, alternatives), with the gaps live catalogues have: a topic without
 * examples, an empty and a missing text.
 */
export const SOFTWARE_TOPICS: Readonly<Record<TopicLanguage, TopicSeed[]>> = {
  en: [
    {
      topic: "project management tools",
      kind: "product",
      volume: 12100,
      prompts: [
        "What is the best project management tool for a small remote team?",
        "Can {brand} handle projects with several hundred tasks?",
      ],
    },
    {
      topic: "CRM software",
      kind: "product",
      volume: 9900,
      prompts: [
        "Which CRM is easiest to set up for a small sales team?",
        "Is {brand} a good CRM for a B2B sales team?",
      ],
    },
    {
      topic: "invoicing software",
      kind: "product",
      volume: 4400,
      prompts: [
        "Which invoicing software handles recurring invoices and sales tax?",
        "Can {brand} send invoices in several currencies?",
      ],
    },
    {
      topic: "integrations",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Which project management tools integrate with Slack and Google Drive?",
        "Does {brand} have an API and a Zapier integration?",
      ],
    },
    {
      topic: "data security",
      kind: "concern",
      volume: 2400,
      prompts: [
        "How do I check whether a software vendor is SOC 2 compliant?",
        "Where does {brand} store its customers' data?",
      ],
    },
    {
      topic: "pricing and plans",
      kind: "commerce",
      volume: 5400,
      prompts: [
        "Is there a free plan good enough for a team of five?",
        "How much does {brand} cost per user per month?",
      ],
    },
    {
      topic: "customer support",
      kind: "concern",
      volume: 1900,
      prompts: [
        "Which software vendors offer live chat support around the clock?",
        "How quickly does {brand} answer support tickets?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 6600,
      prompts: [
        "What are the best alternatives to {brand} for small businesses?",
        "Is there a cheaper tool similar to {brand}?",
      ],
    },
    { topic: "mobile apps", kind: "feature", volume: 1300, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Where can I try {brand} for free?"] },
    { volume: 880, prompts: ["Does {brand} offer a discount for nonprofits?"] },
  ],
  fr: [
    {
      topic: "outils de gestion de projet",
      kind: "product",
      volume: 8100,
      prompts: [
        "Quel outil de gestion de projet choisir pour une petite équipe en télétravail ?",
        "{brand} peut-il gérer des projets de plusieurs centaines de tâches ?",
      ],
    },
    {
      topic: "logiciels CRM",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quel CRM est le plus simple à mettre en place pour une petite équipe commerciale ?",
        "{brand} convient-il à une équipe commerciale en B2B ?",
      ],
    },
    {
      topic: "logiciels de facturation",
      kind: "product",
      volume: 5400,
      prompts: [
        "Quel logiciel de facturation gère les factures récurrentes et la TVA ?",
        "{brand} permet-il d'envoyer des factures en plusieurs devises ?",
      ],
    },
    {
      topic: "intégrations",
      kind: "feature",
      volume: 1900,
      prompts: [
        "Quels outils de gestion de projet s'intègrent avec Slack et Google Drive ?",
        "{brand} propose-t-il une API et une intégration avec Zapier ?",
      ],
    },
    {
      topic: "sécurité des données",
      kind: "concern",
      volume: 2400,
      prompts: [
        "Comment vérifier qu'un éditeur de logiciels est conforme au RGPD ?",
        "Où {brand} héberge-t-il les données de ses clients ?",
      ],
    },
    {
      topic: "tarifs et abonnements",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "Existe-t-il une offre gratuite suffisante pour une équipe de cinq personnes ?",
        "Combien coûte {brand} par utilisateur et par mois ?",
      ],
    },
    {
      topic: "support client",
      kind: "concern",
      volume: 1300,
      prompts: [
        "Quels éditeurs de logiciels proposent un support par chat à toute heure ?",
        "En combien de temps le support de {brand} répond-il aux demandes ?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 4400,
      prompts: [
        "Quelles sont les meilleures alternatives à {brand} pour une PME ?",
        "Existe-t-il un outil moins cher qui ressemble à {brand} ?",
      ],
    },
    { topic: "applications mobiles", kind: "feature", volume: 880, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Comment essayer {brand} gratuitement ?"] },
    { volume: 720, prompts: ["{brand} propose-t-il une remise pour les associations ?"] },
  ],
  de: [
    {
      topic: "Projektmanagement-Tools",
      kind: "product",
      volume: 9900,
      prompts: [
        "Welches Projektmanagement-Tool eignet sich für ein kleines Team im Homeoffice?",
        "Kann {brand} Projekte mit mehreren hundert Aufgaben abbilden?",
      ],
    },
    {
      topic: "CRM-Software",
      kind: "product",
      volume: 8100,
      prompts: [
        "Welches CRM lässt sich für ein kleines Vertriebsteam am einfachsten einrichten?",
        "Eignet sich {brand} als CRM für den Vertrieb an Geschäftskunden?",
      ],
    },
    {
      topic: "Rechnungssoftware",
      kind: "product",
      volume: 5400,
      prompts: [
        "Welche Rechnungssoftware unterstützt wiederkehrende Rechnungen und die Umsatzsteuer?",
        "Kann ich mit {brand} Rechnungen in mehreren Währungen schreiben?",
      ],
    },
    {
      topic: "Integrationen",
      kind: "feature",
      volume: 1900,
      prompts: [
        "Welche Projektmanagement-Tools lassen sich mit Slack und Google Drive verbinden?",
        "Hat {brand} eine Programmierschnittstelle und eine Anbindung an Zapier?",
      ],
    },
    {
      topic: "Datenschutz und Sicherheit",
      kind: "concern",
      volume: 2400,
      prompts: [
        "Wie prüfe ich, ob ein Softwareanbieter die DSGVO einhält?",
        "Wo speichert {brand} die Daten seiner Kunden?",
      ],
    },
    {
      topic: "Preise und Tarife",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "Gibt es einen kostenlosen Tarif, der für ein Team von fünf Leuten reicht?",
        "Was kostet {brand} pro Nutzer und Monat?",
      ],
    },
    {
      topic: "Kundenservice",
      kind: "concern",
      volume: 1300,
      prompts: [
        "Welche Softwareanbieter bieten rund um die Uhr Hilfe per Chat?",
        "Wie schnell beantwortet der Kundenservice von {brand} Anfragen?",
      ],
    },
    {
      topic: "Alternativen",
      kind: "comparison",
      volume: 4400,
      prompts: [
        "Was sind die besten Alternativen zu {brand} für kleine Unternehmen?",
        "Gibt es ein günstigeres Tool, das ähnlich wie {brand} funktioniert?",
      ],
    },
    { topic: "mobile Apps", kind: "feature", volume: 880, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Wie kann ich {brand} kostenlos testen?"] },
    { volume: 720, prompts: ["Gibt es bei {brand} Rabatt für gemeinnützige Vereine?"] },
  ],
  es: [
    {
      topic: "herramientas de gestión de proyectos",
      kind: "product",
      volume: 8100,
      prompts: [
        "¿Qué herramienta de gestión de proyectos me conviene para un equipo pequeño en remoto?",
        "¿Puede {brand} gestionar proyectos con varios cientos de tareas?",
      ],
    },
    {
      topic: "software CRM",
      kind: "product",
      volume: 6600,
      prompts: [
        "¿Qué CRM es más fácil de implantar para un equipo comercial pequeño?",
        "¿Sirve {brand} como CRM para un equipo de ventas a empresas?",
      ],
    },
    {
      topic: "software de facturación",
      kind: "product",
      volume: 5400,
      prompts: [
        "¿Qué programa de facturación gestiona facturas recurrentes y el IVA?",
        "¿Puedo emitir facturas en varias monedas con {brand}?",
      ],
    },
    {
      topic: "integraciones",
      kind: "feature",
      volume: 1600,
      prompts: [
        "¿Qué herramientas de gestión de proyectos se integran con Slack y Google Drive?",
        "¿Tiene {brand} una API y una integración con Zapier?",
      ],
    },
    {
      topic: "seguridad de los datos",
      kind: "concern",
      volume: 1900,
      prompts: [
        "¿Cómo compruebo si un proveedor de software cumple el RGPD?",
        "¿Dónde almacena {brand} los datos de sus clientes?",
      ],
    },
    {
      topic: "precios y planes",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "¿Hay algún plan gratuito que sirva para un equipo de cinco personas?",
        "¿Cuánto cuesta {brand} por usuario al mes?",
      ],
    },
    {
      topic: "atención al cliente",
      kind: "concern",
      volume: 1300,
      prompts: [
        "¿Qué empresas de software ofrecen soporte por chat las veinticuatro horas?",
        "¿Cuánto tarda el soporte de {brand} en responder?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 4400,
      prompts: [
        "¿Cuáles son las mejores alternativas a {brand} para pymes?",
        "¿Existe una herramienta más barata parecida a {brand}?",
      ],
    },
    { topic: "aplicaciones móviles", kind: "feature", volume: 880, prompts: [] },
    { topic: "", volume: 1900, prompts: ["¿Cómo puedo probar {brand} gratis?"] },
    { volume: 720, prompts: ["¿Tiene {brand} descuentos para asociaciones sin ánimo de lucro?"] },
  ],
  it: [
    {
      topic: "strumenti di project management",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quale strumento di project management conviene a un piccolo team che lavora da remoto?",
        "{brand} riesce a gestire progetti con diverse centinaia di attività?",
      ],
    },
    {
      topic: "software CRM",
      kind: "product",
      volume: 5400,
      prompts: [
        "Quale CRM è più semplice da configurare per un piccolo team commerciale?",
        "{brand} va bene come CRM per le vendite alle aziende?",
      ],
    },
    {
      topic: "software di fatturazione",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quale software di fatturazione gestisce le fatture ricorrenti e la fattura elettronica?",
        "Con {brand} posso emettere fatture in più valute?",
      ],
    },
    {
      topic: "integrazioni",
      kind: "feature",
      volume: 1300,
      prompts: [
        "Quali strumenti di project management si integrano con Slack e Google Drive?",
        "{brand} ha un'API e un'integrazione con Zapier?",
      ],
    },
    {
      topic: "sicurezza dei dati",
      kind: "concern",
      volume: 1600,
      prompts: [
        "Come verifico che un fornitore di software sia conforme al GDPR?",
        "Dove conserva {brand} i dati dei clienti?",
      ],
    },
    {
      topic: "prezzi e abbonamenti",
      kind: "commerce",
      volume: 2900,
      prompts: [
        "Esiste un piano gratuito sufficiente per un team di cinque persone?",
        "Quanto costa {brand} per utente al mese?",
      ],
    },
    {
      topic: "assistenza clienti",
      kind: "concern",
      volume: 1000,
      prompts: [
        "Quali aziende di software offrono assistenza in chat ventiquattro ore su ventiquattro?",
        "In quanto tempo risponde l'assistenza di {brand}?",
      ],
    },
    {
      topic: "alternative",
      kind: "comparison",
      volume: 3600,
      prompts: [
        "Quali sono le migliori alternative a {brand} per le piccole imprese?",
        "Esiste uno strumento più economico simile a {brand}?",
      ],
    },
    { topic: "app per smartphone", kind: "feature", volume: 720, prompts: [] },
    { topic: "", volume: 1600, prompts: ["Come posso provare {brand} gratis?"] },
    { volume: 590, prompts: ["{brand} fa sconti alle associazioni senza scopo di lucro?"] },
  ],
  pt: [
    {
      topic: "ferramentas de gestão de projetos",
      kind: "product",
      volume: 4400,
      prompts: [
        "Que ferramenta de gestão de projetos é melhor para uma equipa pequena em teletrabalho?",
        "O {brand} consegue gerir projetos com várias centenas de tarefas?",
      ],
    },
    {
      topic: "software de CRM",
      kind: "product",
      volume: 3600,
      prompts: [
        "Que CRM é mais fácil de configurar para uma equipa comercial pequena?",
        "O {brand} é uma boa opção de CRM para vendas entre empresas?",
      ],
    },
    {
      topic: "software de faturação",
      kind: "product",
      volume: 4400,
      prompts: [
        "Que software de faturação trata faturas recorrentes e o IVA?",
        "Posso emitir faturas em várias moedas com o {brand}?",
      ],
    },
    {
      topic: "integrações",
      kind: "feature",
      volume: 880,
      prompts: [
        "Que ferramentas de gestão de projetos se integram com o Slack e o Google Drive?",
        "O {brand} tem uma API e integração com o Zapier?",
      ],
    },
    {
      topic: "segurança dos dados",
      kind: "concern",
      volume: 1300,
      prompts: [
        "Como verifico se um fornecedor de software cumpre o RGPD?",
        "Onde é que o {brand} guarda os dados dos clientes?",
      ],
    },
    {
      topic: "preços e planos",
      kind: "commerce",
      volume: 1900,
      prompts: [
        "Existe algum plano gratuito que chegue para uma equipa de cinco pessoas?",
        "Quanto custa o {brand} por utilizador e por mês?",
      ],
    },
    {
      topic: "apoio ao cliente",
      kind: "concern",
      volume: 720,
      prompts: [
        "Que empresas de software dão apoio por chat a qualquer hora do dia?",
        "Quanto tempo demora o apoio do {brand} a responder?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 2400,
      prompts: [
        "Quais são as melhores alternativas ao {brand} para pequenas empresas?",
        "Há alguma ferramenta mais barata parecida com o {brand}?",
      ],
    },
    { topic: "aplicações móveis", kind: "feature", volume: 480, prompts: [] },
    { topic: "", volume: 1000, prompts: ["Como posso experimentar o {brand} gratuitamente?"] },
    { volume: 390, prompts: ["O {brand} tem desconto para associações sem fins lucrativos?"] },
  ],
  nl: [
    {
      topic: "projectmanagementtools",
      kind: "product",
      volume: 3600,
      prompts: [
        "Welke projectmanagementtool past bij een klein team dat op afstand werkt?",
        "Kan {brand} projecten met honderden taken aan?",
      ],
    },
    {
      topic: "CRM-software",
      kind: "product",
      volume: 2900,
      prompts: [
        "Welk CRM is het makkelijkst in te richten voor een klein verkoopteam?",
        "Is {brand} geschikt als CRM voor zakelijke verkoop?",
      ],
    },
    {
      topic: "facturatiesoftware",
      kind: "product",
      volume: 2400,
      prompts: [
        "Welke facturatiesoftware ondersteunt terugkerende facturen en btw?",
        "Kan ik met {brand} facturen in meerdere valuta versturen?",
      ],
    },
    {
      topic: "integraties",
      kind: "feature",
      volume: 720,
      prompts: [
        "Welke projectmanagementtools zijn te koppelen met Slack en Google Drive?",
        "Heeft {brand} een API en een koppeling met Zapier?",
      ],
    },
    {
      topic: "privacy en beveiliging",
      kind: "concern",
      volume: 880,
      prompts: [
        "Hoe controleer ik of een softwareleverancier zich aan de AVG houdt?",
        "Waar bewaart {brand} de gegevens van zijn klanten?",
      ],
    },
    {
      topic: "prijzen en abonnementen",
      kind: "commerce",
      volume: 1600,
      prompts: [
        "Is er een gratis abonnement dat genoeg is voor een team van vijf?",
        "Wat kost {brand} per gebruiker per maand?",
      ],
    },
    {
      topic: "klantenservice",
      kind: "concern",
      volume: 590,
      prompts: [
        "Welke softwarebedrijven bieden dag en nacht hulp via de chat?",
        "Hoe snel reageert de klantenservice van {brand} op vragen?",
      ],
    },
    {
      topic: "alternatieven",
      kind: "comparison",
      volume: 1900,
      prompts: [
        "Wat zijn de beste alternatieven voor {brand} voor het mkb?",
        "Is er een goedkopere tool die op {brand} lijkt?",
      ],
    },
    { topic: "mobiele apps", kind: "feature", volume: 390, prompts: [] },
    { topic: "", volume: 880, prompts: ["Hoe kan ik {brand} gratis uitproberen?"] },
    { volume: 320, prompts: ["Geeft {brand} korting aan goede doelen?"] },
  ],
};
