import { type LanguageProfile, list } from "./languageProfile.ts";

export const EN_PROFILE: LanguageProfile = {
  stopwords: list(`a, an, the, and, or, but, of, to, in, on, at, for, with, from, by, about, as, into, than,
    then, is, are, was, were, be, been, being, do, does, did, have, has, had, can, could, should, would, will,
    may, might, must, i, me, my, you, your, we, our, it, its, they, their, them, this, that, these, those,
    what, which, who, whom, whose, how, why, when, where, there, here, so, if, any, some, most, more, very,
    really, actually, still, also, just, one, ones, s, t, m, today, now, right, people, someone, anyone, know,
    tell, get, make, it s, good, well`),
  questionLeads: list(`what, which, how, why, when, where, who, whom, whose, is, are, does, do, did, can,
    could, should, would, will, has, have, recommend*, suggest*, list, compare, explain, tell, show, help,
    give, find, name, describe, summari*, outline, i m looking, im looking, i am looking, i need,
    looking for`),
  cues: {
    comparative: list(`vs, versus, compar*, alternative*, difference*, differ, better, worse, cheaper than,
      instead of, competitor*, rival*, stand out, stands out`),
    pain_point: list(`problem*, issue*, complain*, complaint*, wrong, broken, fix, not working,
      doesn t work, don t work, won t, can t, cannot, scam*, avoid, downside*, drawback*, pitfall*,
      frustrat*, slow, slower, mistake*, trouble`),
    task: list(`how do i, how can i, how to, how should i, step*, set up, setup, start with, get started,
      install*, configure, where should i start, where do i start, prepare`),
    solution: list(`best, recommend*, suggest*, should i buy, should i choose, worth, good for, suitable,
      ideal, right for, choose, choosing, pick, looking for, top`),
  },
};
