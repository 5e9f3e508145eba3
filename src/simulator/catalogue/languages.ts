/**
 * The PE language catalogue (`GET /v1/languages`): the live catalogue as captured from the Project
 * Engine on 2026-06-25 (38 languages; UUID string ids, English names). The ISO code is kept beside
 * each entry because a project's read view shows it (`settings.ai.language.name`); the catalogue
 * endpoint itself serves only `{id, name}`, as live does. Only `en` is live-verified as the read
 * view's value, the other codes are the conventional ones (the fixture's note).
 * test/unit/simulator/catalogue/languages.test.ts holds it equal to the specification's fixture.
 */
export interface CatalogueLanguage {
  id: string;
  code: string;
  name: string;
}

// [id, ISO code, English name], in the live answer's order.
const ENTRIES: [string, string, string][] = [
  ["76b01191-fa8b-4c1d-a71f-55ca8996669c", "af", "Afrikaans"],
  ["7d3efff9-f6b6-4818-ac6b-0d1d2c047803", "ar", "Arabic"],
  ["cfcdee66-f9b3-4f39-9066-141b8de1a52d", "hy", "Armenian"],
  ["c5d84e73-66f9-4f17-989f-9a421d17cfe3", "az", "Azerbaijani"],
  ["ac1ace1e-22a1-40e9-b869-4fe2d0467603", "bg", "Bulgarian"],
  ["728bef4c-94cf-4e14-bc06-56534751c71a", "zh", "Chinese Simplified"],
  ["4fecf249-03fa-430a-b0b1-42421c5c1f7d", "zh-tw", "Chinese Traditional"],
  ["e64e7f7d-11d9-4830-a022-f370e0a74bf7", "cs", "Czech"],
  ["4f407a00-600e-4bdc-bf18-e5d8c7f758e3", "da", "Danish"],
  ["9090239f-5a3e-4101-a828-9bde09ad378b", "nl", "Dutch"],
  ["5a0a33ed-7f5c-4901-befd-a042c0350da1", "en", "English"],
  ["f8b95d67-6ac5-48c2-9ed1-73b9e52d7f92", "fil", "Filipino"],
  ["0a28a154-72ac-421c-86cf-1c4d240f3cda", "fi", "Finnish"],
  ["471aba35-ee1f-4207-b6f6-8c6550bbbab8", "fr", "French"],
  ["5227c7cd-4136-4fca-919c-42e666787319", "ka", "Georgian"],
  ["e5282ae9-83a6-4ea3-b3cf-5e99d8f51eca", "de", "German"],
  ["d7db513e-b5f6-4b11-9309-eda861451008", "el", "Greek"],
  ["a2c8acc6-be1f-47de-94aa-3c2587922922", "he", "Hebrew"],
  ["a3cd47fe-dc60-4cca-89e3-16984a1755af", "hi", "Hindi"],
  ["495ccfcb-d61f-4544-9dc1-24d6393c9d18", "hu", "Hungarian"],
  ["d5376885-d3d8-4e6c-92ea-61d5ff9a7369", "id", "Indonesian"],
  ["3ea61bf2-ebf4-40b5-8a59-900e701d966d", "it", "Italian"],
  ["54bb0cca-b095-444b-be88-818a02e9beeb", "ja", "Japanese"],
  ["ad6bf224-42b0-46b6-b59a-21ea9d021fb8", "kk", "Kazakh"],
  ["c181d356-b65e-4ffa-b706-f61f96503d58", "ko", "Korean"],
  ["1de63814-323e-4b2f-bd36-20fe15de14ae", "ku", "Kurdish"],
  ["9bb46132-a85a-41c8-8d56-38bf5a050e76", "ms", "Malay"],
  ["a3b6e3f2-82f1-4b0b-8223-ae224d54bd63", "no", "Norwegian"],
  ["d53c0677-c451-46b2-9650-83dbca109f25", "pl", "Polish"],
  ["a4e931c1-22c8-45d4-897e-a653acbc8126", "pt", "Portuguese"],
  ["d64b3fb0-62eb-4d7e-947b-952194314b97", "ro", "Romanian"],
  ["19933246-6952-4929-ad0d-6cee874ea553", "ru", "Russian"],
  ["6abdf315-f969-4643-894f-aefabe7ed057", "sk", "Slovak"],
  ["29047b68-fe6f-4525-8ef7-8b1c2349af5d", "es", "Spanish"],
  ["5c400ede-f822-402e-be32-4a88049e74e4", "sv", "Swedish"],
  ["b8208c02-3e73-433b-b6c2-2784d0ba9bfa", "th", "Thai"],
  ["71630579-fd14-4357-81b3-0ae4ecd54975", "tr", "Turkish"],
  ["12aa4de5-3526-4b96-909a-c033c1f4e32c", "vi", "Vietnamese"],
];

export const LANGUAGES: readonly CatalogueLanguage[] = ENTRIES.map(([id, code, name]) => ({
  id,
  code,
  name,
}));

const BY_ID = new Map(LANGUAGES.map((language) => [language.id, language]));

export function languageById(id: string): CatalogueLanguage | undefined {
  return BY_ID.get(id);
}
