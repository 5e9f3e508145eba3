import { type LanguageProfile, list } from "./languageProfile.ts";

export const ES_PROFILE: LanguageProfile = {
  stopwords: list(`el, la, los, las, lo, un, una, unos, unas, y, e, o, u, pero, de, del, a, al, en, con,
    sin, por, para, sobre, entre, hacia, desde, que, quien, cual, cuales, como, cuando, donde, cuanto,
    cuanta, cuantos, cuantas, es, son, ser, esta, estan, estar, hay, ha, han, haber, tiene, tienen, se, su,
    sus, mi, mis, tu, tus, me, te, le, les, nos, yo, el, ella, ellos, ellas, usted, nosotros, este, esta,
    estos, estas, ese, esa, eso, no, si, mas, muy, tambien, realmente, ya, todo, todos, toda, todas,
    hoy, ahora, gente`),
  questionLeads: list(`que, cual, cuales, como, por que, porque, cuanto, cuanta, cuantos, cuantas, donde,
    cuando, quien, quienes, es, son, hay, puedo, se puede, vale, merece, tiene, recomiend*, compara*,
    explica*, dime, muestra*, ayuda*, enumera*, sugiere*, busco, indica*, dame`),
  cues: {
    comparative: list(`vs, versus, compar*, alternativa*, diferencia*, mejor que, peor que, mas barato que,
      mas barata que, frente a, en lugar de, competencia, competidor*, destaca*, cual es mejor, que es mejor`),
    pain_point: list(`problema*, queja*, quejan, fallo*, falla*, no funciona, inconveniente*, desventaja*,
      evitar, estafa*, error*, lento, lenta, reclamacion*, defecto*`),
    task: list(`como puedo, como hago, como configuro, como elijo, como empiezo, como me preparo, como usar,
      como elegir, como se usa, paso*, configurar, empezar, instalar, preparar*`),
    solution: list(`mejor, mejores, recomien*, recomend*, aconsej*, conviene, vale la pena, merece la pena,
      ideal*, adecuad*, elegir`),
  },
};
