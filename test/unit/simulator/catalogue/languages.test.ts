import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { LANGUAGES } from "../../../../src/simulator/catalogue/languages.ts";

const live = JSON.parse(
  readFileSync(new URL("../../../fixtures/semrush/live-catalogues.json", import.meta.url), "utf8"),
) as { languages: { id: string; name: string; iso: string }[] };

describe("the simulator's language catalogue", () => {
  it("is the live catalogue: 38 languages, UUID ids, English names, each with its ISO code", () => {
    expect(LANGUAGES).toEqual(live.languages.map(({ id, name, iso }) => ({ id, code: iso, name })));
    expect(LANGUAGES).toHaveLength(38);
  });
});
