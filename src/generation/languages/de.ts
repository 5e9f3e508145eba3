import { type LanguageProfile, list } from "./languageProfile.ts";

export const DE_PROFILE: LanguageProfile = {
  stopwords: list(`der, die, das, den, dem, des, ein, eine, einen, einem, einer, eines, und, oder, aber,
    doch, von, vom, zu, zum, zur, in, im, an, am, auf, aus, bei, mit, nach, fur, uber, unter, vor, um, als,
    wie, was, wer, wo, wann, warum, welche, welcher, welches, welchen, ist, sind, war, waren, sein, hat,
    haben, wird, werden, kann, kannst, konnen, soll, sollte, sollten, muss, ich, mir, mich, mein, meine,
    meinen, du, dir, dich, dein, deine, er, sie, es, wir, uns, unser, ihr, ihre, man, sich, nicht, kein,
    keine, auch, noch, sehr, wirklich, so, nur, da, dass, wenn, ob, denn, gibt, es gibt, heute, gerade,
    leute`),
  questionLeads: list(`was, welche*, wie, warum, wieso, weshalb, wo, woran, worauf, woruber, wobei, womit,
    wann, wer, ist, sind, gibt, kann, kannst, konnen, soll, sollte, lohnt, hat, haben, hatte, empfiehl*,
    nenne*, vergleiche*, erklar*, zeig*, hilf*, gib, liste*, beschreib*, ich suche`),
  cues: {
    comparative: list(`vs, versus, vergleich*, alternative*, unterschied*, besser, schlechter,
      gunstiger als, konkurren*, statt, anstatt, im gegensatz, abheben, hebt sich, schneidet`),
    pain_point: list(`problem*, beschwer*, schwierigkeit*, fehler*, nachteil*, funktioniert nicht, kaputt,
      betrug*, betrugerisch, vermeiden, reklamation*, arger, langsam*, haken, stolperfall*`),
    task: list(`wie kann ich, wie richte ich, wie gehe ich, wie fange ich, wie starte ich, wie bereite ich,
      wie finde ich, wie wahle ich, wie nutze ich, schritt*, einrichten, anfangen, vorbereiten, anleitung,
      installier*`),
    solution: list(`beste*, empfehl*, empfiehl*, lohnt*, geeignet*, eignet, eignen, passt, ideal*, wahlen,
      auswahlen`),
  },
};
