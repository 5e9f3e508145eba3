import { type LanguageProfile, list } from "./languageProfile.ts";

export const IT_PROFILE: LanguageProfile = {
  stopwords: list(`il, lo, la, i, gli, le, l, un, uno, una, un, e, ed, o, ma, di, del, dello, della, dei,
    degli, delle, a, al, allo, alla, ai, agli, alle, da, dal, dalla, dai, in, nel, nella, nei, con, su, sul,
    sulla, per, tra, fra, che, chi, cosa, quale, quali, come, quando, dove, quanto, quanta, quanti, perche,
    e, sono, essere, c, ce, ha, hanno, avere, si, mi, ti, ci, vi, me, te, io, tu, lui, lei, noi, voi, loro,
    mio, mia, miei, mie, tuo, suo, sua, questo, questa, quello, quella, non, piu, molto, anche, davvero,
    gia, tutto, tutti, oggi, ora, gente`),
  questionLeads: list(`cosa, che, quale, quali, come, perche, quanto, quanta, quanti, quante, dove, quando,
    chi, e, sono, c e, ce, conviene, vale, posso, si puo, esiste, consiglia*, confronta*, spiega*, dimmi,
    mostra*, aiuta*, elenca*, suggerisci*, cerco, indica*, dammi`),
  cues: {
    comparative: list(`vs, versus, confront*, alternativ*, differenz*, meglio, peggio, rispetto a,
      invece di, concorren*, distingu*, si distingue`),
    pain_point: list(`problem*, lament*, reclam*, guast*, non funziona, svantagg*, difett*, evitare,
      truff*, error*, lento, lenta, inconvenient*`),
    task: list(`come posso, come faccio, come imposto, come scelgo, come inizio, come mi preparo,
      come usare, come scegliere, passaggi, passo, impostare, configurare, iniziare, installare, preparar*`),
    solution: list(`miglior*, consigl*, conviene, vale la pena, valgono la pena, ideal*, adatt*, scegliere`),
  },
};
