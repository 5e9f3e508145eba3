import { type LanguageProfile, list } from "./languageProfile.ts";

export const NL_PROFILE: LanguageProfile = {
  stopwords: list(`de, het, een, en, of, maar, van, voor, in, op, aan, met, bij, naar, om, uit, over, tot,
    door, als, dan, dat, die, dit, deze, wat, wie, welke, welk, hoe, waarom, waar, wanneer, is, zijn, was,
    waren, wordt, worden, heeft, hebben, had, kan, kun, kunnen, moet, moeten, zal, zou, ik, me, mij, mijn,
    je, jij, jou, jouw, u, uw, hij, zij, ze, wij, we, ons, onze, hun, er, zich, niet, geen, ook, nog, heel,
    erg, echt, zo, al, wel, s, t, vandaag, nu, mensen`),
  questionLeads: list(`wat, welke, welk, hoe, waarom, waar, waarover, waarmee, waarop, wanneer, wie, is,
    zijn, kan, kun, kunnen, moet, heeft, hebben, loont, bestaat, raad*, beveel*, vergelijk*, leg, noem*,
    geef*, help*, toon*, laat, beschrijf*, ik zoek`),
  cues: {
    comparative: list(`vs, versus, vergelijk*, alternatie*, verschil*, beter dan, goedkoper dan,
      in plaats van, concurrent*, onderscheid*, verhoudt, beter`),
    pain_point: list(`probleem*, problemen, klacht*, klagen, storing*, werkt niet, nadeel, nadelen, defect*,
      vermijden, oplichter*, fout*, traag, trager`),
    task: list(`hoe kan ik, hoe stel ik, hoe kies ik, hoe begin ik, hoe bereid ik, hoe krijg ik, hoe pak ik,
      hoe gebruik ik, stap*, instellen, installeren, beginnen, voorbereiden`),
    solution: list(`beste, aanraden, aanrader, raad*, aanbevel*, waard, geschikt*, ideaal, kiezen`),
  },
};
