import type { TopicLanguage } from "../countries.ts";
import type { TopicSeed } from "../topicSeeds/types.ts";

/**
 * A retail bank's catalogue (savings, cards, mortgages, current accounts, mobile banking, fraud,
 * fees, alternatives), with the gaps live catalogues have: a topic without examples, an empty and
 * a missing text.
 */
export const BANKING_TOPICS: Readonly<Record<TopicLanguage, TopicSeed[]>> = {
  en: [
    {
      topic: "savings accounts",
      kind: "product",
      volume: 14800,
      prompts: [
        "Which savings account pays the highest interest right now?",
        "What interest rate does {brand} pay on its savings account?",
      ],
    },
    {
      topic: "credit cards",
      kind: "product",
      volume: 12100,
      prompts: [
        "Which credit card is best for paying abroad without foreign transaction fees?",
        "Does the {brand} credit card have an annual fee?",
      ],
    },
    {
      topic: "mortgages",
      kind: "product",
      volume: 9900,
      prompts: [
        "How much of a down payment do I need for a first mortgage?",
        "Does {brand} offer mortgages for first-time home buyers?",
      ],
    },
    {
      topic: "checking accounts",
      kind: "product",
      volume: 6600,
      prompts: [
        "Which checking account has no monthly maintenance fee?",
        "How do I open a checking account with {brand} online?",
      ],
    },
    {
      topic: "mobile banking",
      kind: "feature",
      volume: 4400,
      prompts: [
        "Which banking apps let you freeze a card instantly?",
        "Can I deposit checks with the {brand} app?",
      ],
    },
    {
      topic: "fraud protection",
      kind: "concern",
      volume: 2900,
      prompts: [
        "What should I do if someone uses my card without permission?",
        "How does {brand} protect its customers against fraud?",
      ],
    },
    {
      topic: "bank fees",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "Which banks charge no fees for international transfers?",
        "How much does {brand} charge for an overdraft?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 2400,
      prompts: [
        "Which banks are good alternatives to {brand}?",
        "Is there an online bank with lower fees than {brand}?",
      ],
    },
    { topic: "student accounts", kind: "product", volume: 1600, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Where is the nearest {brand} branch?"] },
    { volume: 880, prompts: ["Is the {brand} customer helpline open on weekends?"] },
  ],
  fr: [
    {
      topic: "livrets d'épargne",
      kind: "product",
      volume: 12100,
      prompts: [
        "Quel livret d'épargne rapporte le plus en ce moment ?",
        "Quel est le taux du livret d'épargne {brand} ?",
      ],
    },
    {
      topic: "cartes bancaires",
      kind: "product",
      volume: 9900,
      prompts: [
        "Quelle carte bancaire choisir pour payer à l'étranger sans frais ?",
        "La carte {brand} a-t-elle une cotisation annuelle ?",
      ],
    },
    {
      topic: "crédits immobiliers",
      kind: "product",
      volume: 8100,
      prompts: [
        "Quel apport faut-il pour un premier crédit immobilier ?",
        "{brand} propose-t-il des prêts immobiliers aux primo-accédants ?",
      ],
    },
    {
      topic: "comptes courants",
      kind: "product",
      volume: 5400,
      prompts: [
        "Quelle banque propose un compte courant sans frais de tenue de compte ?",
        "Comment ouvrir un compte {brand} en ligne ?",
      ],
    },
    {
      topic: "application mobile",
      kind: "feature",
      volume: 3600,
      prompts: [
        "Quelles applis bancaires permettent de bloquer sa carte instantanément ?",
        "Peut-on déposer un chèque avec l'application {brand} ?",
      ],
    },
    {
      topic: "protection contre la fraude",
      kind: "concern",
      volume: 1900,
      prompts: [
        "Que faire si quelqu'un utilise ma carte sans mon accord ?",
        "Comment {brand} protège-t-il ses clients contre la fraude ?",
      ],
    },
    {
      topic: "frais bancaires",
      kind: "commerce",
      volume: 4400,
      prompts: [
        "Quelles banques ne facturent pas les virements internationaux ?",
        "Combien coûte un découvert chez {brand} ?",
      ],
    },
    {
      topic: "alternatives",
      kind: "comparison",
      volume: 1900,
      prompts: [
        "Quelles banques sont de bonnes alternatives à {brand} ?",
        "Existe-t-il une banque en ligne moins chère que {brand} ?",
      ],
    },
    { topic: "comptes pour étudiants", kind: "product", volume: 1300, prompts: [] },
    { topic: "", volume: 1900, prompts: ["Où se trouve l'agence {brand} la plus proche ?"] },
    { volume: 720, prompts: ["Le service client de {brand} est-il joignable le week-end ?"] },
  ],
  de: [
    {
      topic: "Tagesgeldkonten",
      kind: "product",
      volume: 14800,
      prompts: [
        "Welches Tagesgeldkonto bietet aktuell die höchsten Zinsen?",
        "Wie hoch sind die Zinsen auf dem Tagesgeldkonto von {brand}?",
      ],
    },
    {
      topic: "Kreditkarten",
      kind: "product",
      volume: 12100,
      prompts: [
        "Mit welcher Kreditkarte bezahlt man im Ausland ohne Auslandseinsatzgebühr?",
        "Hat die Kreditkarte von {brand} eine Jahresgebühr?",
      ],
    },
    {
      topic: "Baufinanzierung",
      kind: "product",
      volume: 8100,
      prompts: [
        "Wie viel Eigenkapital braucht man für eine erste Baufinanzierung?",
        "Bietet {brand} Baufinanzierungen für Erstkäufer an?",
      ],
    },
    {
      topic: "Girokonten",
      kind: "product",
      volume: 9900,
      prompts: [
        "Welche Bank bietet ein Girokonto ohne Kontoführungsgebühren?",
        "Wie eröffne ich online ein Girokonto bei {brand}?",
      ],
    },
    {
      topic: "Mobile Banking",
      kind: "feature",
      volume: 2900,
      prompts: [
        "Mit welchen Banking-Apps kann man die Karte sofort sperren?",
        "Kann ich mit der App von {brand} Rechnungen per Foto überweisen?",
      ],
    },
    {
      topic: "Schutz vor Betrug",
      kind: "concern",
      volume: 1600,
      prompts: [
        "Was tun, wenn jemand meine Karte ohne meine Zustimmung benutzt?",
        "Wie schützt {brand} seine Kunden vor Betrug?",
      ],
    },
    {
      topic: "Gebühren",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "Welche Banken verlangen keine Gebühren für Auslandsüberweisungen?",
        "Wie hoch sind die Dispozinsen bei {brand}?",
      ],
    },
    {
      topic: "Alternativen",
      kind: "comparison",
      volume: 1900,
      prompts: [
        "Welche Banken sind gute Alternativen zu {brand}?",
        "Gibt es eine Direktbank mit niedrigeren Gebühren als {brand}?",
      ],
    },
    { topic: "Studentenkonten", kind: "product", volume: 1300, prompts: [] },
    { topic: "", volume: 2400, prompts: ["Wo ist die nächste Filiale von {brand}?"] },
    { volume: 720, prompts: ["Ist die Hotline von {brand} auch am Wochenende erreichbar?"] },
  ],
  es: [
    {
      topic: "cuentas de ahorro",
      kind: "product",
      volume: 8100,
      prompts: [
        "¿Qué cuenta de ahorro da más intereses ahora mismo?",
        "¿Qué interés paga la cuenta de ahorro de {brand}?",
      ],
    },
    {
      topic: "tarjetas de crédito",
      kind: "product",
      volume: 9900,
      prompts: [
        "¿Qué tarjeta de crédito conviene para pagar en el extranjero sin comisiones?",
        "¿La tarjeta de crédito de {brand} tiene cuota anual?",
      ],
    },
    {
      topic: "hipotecas",
      kind: "product",
      volume: 12100,
      prompts: [
        "¿Cuánto dinero ahorrado necesito para pedir mi primera hipoteca?",
        "¿Ofrece {brand} hipotecas para jóvenes que compran su primera vivienda?",
      ],
    },
    {
      topic: "cuentas corrientes",
      kind: "product",
      volume: 5400,
      prompts: [
        "¿Qué banco ofrece una cuenta corriente sin comisiones de mantenimiento?",
        "¿Cómo abro una cuenta en {brand} por internet?",
      ],
    },
    {
      topic: "banca móvil",
      kind: "feature",
      volume: 2900,
      prompts: [
        "¿Qué aplicaciones bancarias permiten bloquear la tarjeta al momento?",
        "¿Puedo enviar dinero con Bizum desde la aplicación de {brand}?",
      ],
    },
    {
      topic: "protección contra el fraude",
      kind: "concern",
      volume: 1600,
      prompts: [
        "¿Qué hago si alguien usa mi tarjeta sin mi permiso?",
        "¿Cómo protege {brand} a sus clientes contra el fraude?",
      ],
    },
    {
      topic: "comisiones",
      kind: "commerce",
      volume: 3600,
      prompts: [
        "¿Qué bancos no cobran comisiones por las transferencias internacionales?",
        "¿Qué comisión cobra {brand} por un descubierto?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 1900,
      prompts: [
        "¿Qué bancos son buenas alternativas a {brand}?",
        "¿Hay algún banco online con menos comisiones que {brand}?",
      ],
    },
    { topic: "cuentas para estudiantes", kind: "product", volume: 1000, prompts: [] },
    { topic: "", volume: 1900, prompts: ["¿Dónde está la oficina de {brand} más cercana?"] },
    { volume: 720, prompts: ["¿Atiende {brand} por teléfono los fines de semana?"] },
  ],
  it: [
    {
      topic: "conti deposito",
      kind: "product",
      volume: 9900,
      prompts: [
        "Quale conto deposito offre il tasso più alto in questo momento?",
        "Che tasso offre il conto deposito di {brand}?",
      ],
    },
    {
      topic: "carte di credito",
      kind: "product",
      volume: 8100,
      prompts: [
        "Quale carta di credito conviene per pagare all'estero senza commissioni?",
        "La carta di credito di {brand} ha un canone annuo?",
      ],
    },
    {
      topic: "mutui",
      kind: "product",
      volume: 12100,
      prompts: [
        "Quanti risparmi servono per chiedere il primo mutuo?",
        "{brand} offre mutui per chi compra la prima casa?",
      ],
    },
    {
      topic: "conti correnti",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quale banca offre un conto corrente a canone zero?",
        "Come si apre un conto {brand} online?",
      ],
    },
    {
      topic: "mobile banking",
      kind: "feature",
      volume: 2400,
      prompts: [
        "Quali app bancarie permettono di bloccare la carta all'istante?",
        "Posso fare un bonifico istantaneo dall'app di {brand}?",
      ],
    },
    {
      topic: "protezione dalle frodi",
      kind: "concern",
      volume: 1300,
      prompts: [
        "Cosa devo fare se qualcuno usa la mia carta senza permesso?",
        "Come protegge {brand} i suoi clienti dalle frodi?",
      ],
    },
    {
      topic: "commissioni",
      kind: "commerce",
      volume: 2900,
      prompts: [
        "Quali banche non applicano commissioni sui bonifici esteri?",
        "Quanto costa andare in rosso sul conto con {brand}?",
      ],
    },
    {
      topic: "alternative",
      kind: "comparison",
      volume: 1600,
      prompts: [
        "Quali banche sono buone alternative a {brand}?",
        "Esiste una banca online con costi più bassi di {brand}?",
      ],
    },
    { topic: "conti per studenti", kind: "product", volume: 880, prompts: [] },
    { topic: "", volume: 1600, prompts: ["Dov'è la filiale {brand} più vicina?"] },
    { volume: 590, prompts: ["Il servizio clienti di {brand} risponde anche nel fine settimana?"] },
  ],
  pt: [
    {
      topic: "contas poupança",
      kind: "product",
      volume: 4400,
      prompts: [
        "Que conta poupança dá mais juros neste momento?",
        "Que taxa de juro paga a conta poupança do {brand}?",
      ],
    },
    {
      topic: "cartões de crédito",
      kind: "product",
      volume: 5400,
      prompts: [
        "Que cartão de crédito compensa para pagar no estrangeiro sem comissões?",
        "O cartão de crédito do {brand} tem anuidade?",
      ],
    },
    {
      topic: "crédito à habitação",
      kind: "product",
      volume: 6600,
      prompts: [
        "Quanto dinheiro preciso de ter poupado para pedir o primeiro crédito à habitação?",
        "O {brand} tem crédito à habitação para jovens?",
      ],
    },
    {
      topic: "contas à ordem",
      kind: "product",
      volume: 2900,
      prompts: [
        "Que banco tem uma conta à ordem sem comissões de manutenção?",
        "Como abro uma conta no {brand} pela internet?",
      ],
    },
    {
      topic: "aplicação do banco",
      kind: "feature",
      volume: 1900,
      prompts: [
        "Que aplicações bancárias deixam bloquear o cartão na hora?",
        "Posso fazer pagamentos com MB WAY na aplicação do {brand}?",
      ],
    },
    {
      topic: "proteção contra fraudes",
      kind: "concern",
      volume: 880,
      prompts: [
        "O que faço se alguém usar o meu cartão sem autorização?",
        "Como é que o {brand} protege os clientes contra fraudes?",
      ],
    },
    {
      topic: "comissões bancárias",
      kind: "commerce",
      volume: 2400,
      prompts: [
        "Que bancos não cobram comissões nas transferências internacionais?",
        "Quanto cobra o {brand} por um descoberto na conta?",
      ],
    },
    {
      topic: "alternativas",
      kind: "comparison",
      volume: 1300,
      prompts: [
        "Que bancos são boas alternativas ao {brand}?",
        "Há algum banco online com menos comissões do que o {brand}?",
      ],
    },
    { topic: "contas para estudantes", kind: "product", volume: 590, prompts: [] },
    { topic: "", volume: 1300, prompts: ["Onde fica a agência do {brand} mais próxima?"] },
    { volume: 480, prompts: ["O apoio ao cliente do {brand} atende ao fim de semana?"] },
  ],
  nl: [
    {
      topic: "spaarrekeningen",
      kind: "product",
      volume: 6600,
      prompts: [
        "Welke spaarrekening geeft op dit moment de hoogste rente?",
        "Hoeveel rente geeft {brand} op de spaarrekening?",
      ],
    },
    {
      topic: "creditcards",
      kind: "product",
      volume: 4400,
      prompts: [
        "Met welke creditcard betaal je in het buitenland zonder extra kosten?",
        "Betaal je voor de creditcard van {brand} een jaarlijkse bijdrage?",
      ],
    },
    {
      topic: "hypotheken",
      kind: "product",
      volume: 8100,
      prompts: [
        "Hoeveel eigen geld heb ik nodig voor een eerste hypotheek?",
        "Biedt {brand} hypotheken voor starters op de woningmarkt?",
      ],
    },
    {
      topic: "betaalrekeningen",
      kind: "product",
      volume: 2900,
      prompts: [
        "Welke bank heeft een betaalrekening zonder maandelijkse kosten?",
        "Hoe open ik online een rekening bij {brand}?",
      ],
    },
    {
      topic: "mobiel bankieren",
      kind: "feature",
      volume: 1900,
      prompts: [
        "Met welke bankapps kun je je pas direct blokkeren?",
        "Kan ik met de app van {brand} een betaalverzoek sturen?",
      ],
    },
    {
      topic: "bescherming tegen fraude",
      kind: "concern",
      volume: 880,
      prompts: [
        "Wat moet ik doen als iemand mijn pas zonder toestemming gebruikt?",
        "Hoe beschermt {brand} zijn klanten tegen fraude?",
      ],
    },
    {
      topic: "kosten en tarieven",
      kind: "commerce",
      volume: 1600,
      prompts: [
        "Welke banken rekenen geen kosten voor internationale overboekingen?",
        "Wat kost rood staan bij {brand}?",
      ],
    },
    {
      topic: "alternatieven",
      kind: "comparison",
      volume: 1000,
      prompts: [
        "Welke banken zijn goede alternatieven voor {brand}?",
        "Is er een online bank die goedkoper is dan {brand}?",
      ],
    },
    { topic: "studentenrekeningen", kind: "product", volume: 480, prompts: [] },
    { topic: "", volume: 1300, prompts: ["Waar is het dichtstbijzijnde kantoor van {brand}?"] },
    { volume: 390, prompts: ["Is de klantenservice van {brand} ook in het weekend bereikbaar?"] },
  ],
};
