import { DE_TEMPLATES } from "./de.ts";
import { EN_TEMPLATES } from "./en.ts";
import { ES_TEMPLATES } from "./es.ts";
import { FR_TEMPLATES } from "./fr.ts";
import { IT_TEMPLATES } from "./it.ts";
import { NL_TEMPLATES } from "./nl.ts";
import type { PromptTemplate } from "./promptTemplate.ts";
import { PT_TEMPLATES } from "./pt.ts";

export type { PromptTemplate } from "./promptTemplate.ts";

export const TEMPLATES_BY_LANGUAGE: Readonly<Record<string, readonly PromptTemplate[]>> = {
  en: EN_TEMPLATES,
  fr: FR_TEMPLATES,
  de: DE_TEMPLATES,
  es: ES_TEMPLATES,
  it: IT_TEMPLATES,
  pt: PT_TEMPLATES,
  nl: NL_TEMPLATES,
};
