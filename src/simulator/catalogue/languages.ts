/**
 * The PE language catalogue (`GET /v1/languages`): English names and catalogue ids. The ISO code is
 * kept beside each entry because a project's settings show it (`settings.ai.language.name`); the
 * catalogue endpoint itself serves only `{id, name}`, as live does.
 */
export interface CatalogueLanguage {
  id: number;
  code: string;
  name: string;
}

const ENTRIES: [string, string][] = [
  ["en", "English"],
  ["fr", "French"],
  ["de", "German"],
  ["es", "Spanish"],
  ["it", "Italian"],
  ["pt", "Portuguese"],
  ["nl", "Dutch"],
  ["pl", "Polish"],
  ["sv", "Swedish"],
  ["da", "Danish"],
  ["no", "Norwegian"],
  ["fi", "Finnish"],
  ["cs", "Czech"],
  ["sk", "Slovak"],
  ["hu", "Hungarian"],
  ["ro", "Romanian"],
  ["bg", "Bulgarian"],
  ["el", "Greek"],
  ["tr", "Turkish"],
  ["ru", "Russian"],
  ["uk", "Ukrainian"],
  ["hr", "Croatian"],
  ["sr", "Serbian"],
  ["sl", "Slovenian"],
  ["lt", "Lithuanian"],
  ["lv", "Latvian"],
  ["et", "Estonian"],
  ["ja", "Japanese"],
  ["ko", "Korean"],
  ["zh", "Chinese"],
  ["ar", "Arabic"],
  ["he", "Hebrew"],
  ["hi", "Hindi"],
  ["id", "Indonesian"],
  ["ms", "Malay"],
  ["th", "Thai"],
  ["vi", "Vietnamese"],
  ["tl", "Filipino"],
];

export const LANGUAGES: readonly CatalogueLanguage[] = ENTRIES.map(([code, name], index) => ({
  id: index + 1,
  code,
  name,
}));

const BY_ID = new Map(LANGUAGES.map((language) => [language.id, language]));

export function languageById(id: number): CatalogueLanguage | undefined {
  return BY_ID.get(id);
}
