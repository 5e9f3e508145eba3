import { type LanguageProfile, list } from "./languageProfile.ts";

export const PT_PROFILE: LanguageProfile = {
  stopwords: list(`o, a, os, as, um, uma, uns, umas, e, ou, mas, de, do, da, dos, das, em, no, na, nos,
    nas, num, numa, por, pelo, pela, para, com, sem, sobre, entre, que, quem, qual, quais, como, quando,
    onde, quanto, quanta, e, sao, ser, esta, estao, estar, ha, tem, tinha, ter, se, seu, sua, seus, suas,
    meu, minha, meus, minhas, me, te, lhe, nos, eu, tu, ele, ela, eles, elas, voce, este, esta, isto, esse,
    essa, isso, nao, mais, muito, tambem, mesmo, realmente, ja, todo, todos, toda, todas, hoje, agora,
    pessoas`),
  questionLeads: list(`o que, que, qual, quais, como, por que, porque, quanto, quanta, quantos, quantas,
    onde, quando, quem, e, sao, ha, vale, posso, devo, da, existe, tem, recomend*, compar*, expliq*,
    diga*, diz me, mostr*, ajud*, list*, sugir*, procuro, indiq*, de me`),
  cues: {
    comparative: list(`vs, versus, compar*, alternativa*, diferenca*, melhor do que, melhor que, pior que,
      mais barato do que, mais barata do que, em vez de, concorren*, destaca*, qual e melhor`),
    pain_point: list(`problema*, queixa*, queixam, reclama*, avaria*, nao funciona, desvantage*, defeito*,
      evitar, burla*, golpe*, erro*, lento, lenta`),
    task: list(`como posso, como faco, como configuro, como escolho, como comeco, como me preparo,
      como usar, como escolher, passo*, configurar, comecar, instalar, preparar*`),
    solution: list(`melhor, melhores, recomend*, aconselh*, vale a pena, ideal*, indicad*, adequad*,
      escolher`),
  },
};
