import { type LanguageProfile, list } from "./languageProfile.ts";

export const FR_PROFILE: LanguageProfile = {
  stopwords: list(`le, la, les, l, un, une, des, de, du, d, et, ou, mais, donc, car, ni, a, au, aux, en,
    dans, sur, sous, pour, par, avec, sans, chez, entre, vers, que, qu, qui, quoi, dont, ce, cet, cette, ces,
    c, se, s, sa, son, ses, mon, ma, mes, ton, ta, tes, notre, nos, votre, vos, leur, leurs, je, j, tu, il,
    elle, on, nous, vous, ils, elles, me, m, te, t, y, est, sont, etre, ete, a, ont, avoir, fait, faire,
    faut, peut, peux, quel, quelle, quels, quelles, comment, pourquoi, quand, combien, ou, plus, moins, tres,
    bien, aussi, encore, vraiment, ne, pas, si, tout, tous, toute, toutes, ca, cela, est ce, aujourd hui,
    moment, gens`),
  questionLeads: list(`quel, quelle, quels, quelles, que, qu, quoi, comment, pourquoi, combien, ou, quand,
    qui, est ce, est il, est elle, existe t il, y a t il, peut, peux, faut, vaut, lequel, laquelle,
    lesquels, recommande*, conseille*, compare*, explique*, donne*, cite*, liste*, aide*, indique*,
    propose*, suggere*, trouve*, dis moi, montre*, je cherche`),
  cues: {
    comparative: list(`vs, versus, compar*, alternative*, difference*, mieux que, meilleur que,
      meilleure que, moins cher que, moins chere que, plutot que, face a, concurren*, se distingu*,
      distingue, lequel, laquelle, lesquels`),
    pain_point: list(`probleme*, plainte*, plaignent, se plaint, souci*, panne*, ne fonctionne,
      ne marche, inconvenient*, defaut*, eviter, arnaque*, erreur*, piege*, lent, lente, frustr*,
      reproche*, difficulte*`),
    task: list(`comment faire, comment bien, comment choisir, comment utiliser, comment configurer,
      comment demarrer, comment debuter, comment preparer, comment se preparer, comment integrer, etape*,
      par ou commencer, configurer, installer, demarrer, debuter, mettre en place, s y prendre`),
    solution: list(`meilleur*, recommand*, conseill*, choisir, ideal*, convient, conviennent, adapte*,
      vaut le coup, vaut la peine, top`),
  },
};
