import { describe, expect, it } from "vitest";

import { generationJobMetadataSchema } from "../../../src/generation/generationJobMetadata.ts";
import {
  baseUrlFor,
  resolveGenerationModel,
  toGenerationRequest,
  type UnknownModelWarning,
} from "../../../src/generation/toGenerationRequest.ts";
import { generationRequestSchema } from "../../../src/generation/wire.ts";
import { DRS_CONTRACT } from "../../support/generationFixtures.ts";

/** The job metadata that corresponds to the fixture's request (spec/generation.md §3). */
const FIXTURE_METADATA = {
  brandId: "0c400d4b-9a1e-4f2b-8c7d-1e2f3a4b5c6d",
  orgId: "org-1",
  workspaceId: "ws-1",
  geoTargetId: 2250,
  languageCode: "fr",
  market: "FR",
  baseUrl: "https://lumiere-skincare.example",
  brand: "Lumiere Skincare",
  aliases: ["Lumiere", "Lumiere Paris"],
  count: 2,
  seeds: [
    {
      topic: "creme hydratante visage",
      volume: 8100,
      examplePrompts: ["meilleure creme hydratante pour peau seche"],
    },
    { topic: "serum vitamine c", volume: 5400, examplePrompts: ["serum vitamine c avis"] },
  ],
  callerId: "user-1",
};
const IMS_ORG_ID = "ABCDEF1234567890ABCDEF01@AdobeOrg";

function fixtureMetadata() {
  return generationJobMetadataSchema.parse(FIXTURE_METADATA);
}

describe("request mapping (job metadata → DRS wire request)", () => {
  it("reproduces the fixture's request exactly, key order included", () => {
    const request = toGenerationRequest(fixtureMetadata(), { imsOrgId: IMS_ORG_ID });
    expect(JSON.stringify(request)).toBe(JSON.stringify(DRS_CONTRACT.request));
    expect(generationRequestSchema.parse(request)).toEqual(request);
  });

  it("omits the audience key when absent and places it after language_code when present", () => {
    const without = toGenerationRequest(fixtureMetadata(), { imsOrgId: IMS_ORG_ID });
    expect(Object.keys(without)).not.toContain("audience");
    const blank = toGenerationRequest({ ...fixtureMetadata(), audience: "  " }, { imsOrgId: IMS_ORG_ID });
    expect(Object.keys(blank)).not.toContain("audience");
    const withAudience = toGenerationRequest(
      { ...fixtureMetadata(), audience: "femmes 25-40 ans" },
      { imsOrgId: IMS_ORG_ID },
    );
    const keys = Object.keys(withAudience);
    expect(withAudience.audience).toBe("femmes 25-40 ans");
    expect(keys.indexOf("audience")).toBe(keys.indexOf("language_code") + 1);
  });

  it("takes the model from the allowlist, and falls back to gpt-5-nano with a warning", () => {
    const warnings: UnknownModelWarning[] = [];
    const warn = (warning: UnknownModelWarning) => warnings.push(warning);
    expect(
      toGenerationRequest(fixtureMetadata(), { imsOrgId: IMS_ORG_ID, model: "gpt-5.4-mini" }, warn).model,
    ).toBe("gpt-5.4-mini");
    expect(warnings).toEqual([]);
    expect(
      toGenerationRequest(fixtureMetadata(), { imsOrgId: IMS_ORG_ID, model: "gpt-4o" }, warn).model,
    ).toBe("gpt-5-nano");
    expect(warnings).toEqual([{ kind: "unknownGenerationModel", requested: "gpt-4o", used: "gpt-5-nano" }]);
    for (const model of ["gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5-nano"]) {
      expect(resolveGenerationModel(model)).toBe(model);
    }
    expect(resolveGenerationModel(undefined)).toBe("gpt-5-nano");
    expect(resolveGenerationModel("  ")).toBe("gpt-5-nano");
  });

  it("omits imsOrgId when the org has no external id, and normalises country, language and aliases", () => {
    const request = toGenerationRequest(
      {
        ...fixtureMetadata(),
        market: "fr",
        languageCode: "FR-fr",
        aliases: [" Lumiere ", "lumiere", "", "Lumiere Skincare", "Lumiere Paris"],
      },
      { imsOrgId: null },
    );
    expect(request.metadata).toEqual({});
    expect(request.market_country).toBe("FR");
    expect(request.language_code).toBe("fr");
    expect(request.brand_aliases).toEqual(["Lumiere", "Lumiere Paris"]);
  });

  it("marks a catalogue without seeds as empty (a preview case; the producer skips it)", () => {
    const request = toGenerationRequest({ ...fixtureMetadata(), seeds: [] }, { imsOrgId: IMS_ORG_ID });
    expect(request.catalogue_status).toBe("empty");
    expect(request.catalogue_seeds).toEqual([]);
  });

  it("derives the base URL from the primary URL, else the domain", () => {
    expect(baseUrlFor("https://www.lumiere.example/fr", "lumiere.example")).toBe(
      "https://www.lumiere.example/fr",
    );
    expect(baseUrlFor(null, "lumiere-skincare.example")).toBe("https://lumiere-skincare.example");
    expect(baseUrlFor(" ", "http://lumiere.example/path")).toBe("https://lumiere.example");
  });

  it("the metadata schema applies defaults and drops keys it does not know", () => {
    const { count: _count, aliases: _aliases, ...minimal } = FIXTURE_METADATA;
    const parsed = generationJobMetadataSchema.parse({
      ...minimal,
      credentialId: "c-1",
      bearer: "secret-token",
    });
    expect(parsed.count).toBe(50);
    expect(parsed.aliases).toEqual([]);
    expect(parsed).not.toHaveProperty("credentialId");
    expect(parsed).not.toHaveProperty("bearer");
  });
});
