import { describe, expect, it } from "vitest";

import { countryForGeoTargetId, countryName, geoTargetIdFor } from "../../../src/domain/geoTarget.ts";

describe("geo targets", () => {
  it.each([
    ["US", 2840],
    ["fr", 2250],
    ["DE", 2276],
    ["GB", 2826],
    ["AD", 2020],
  ])("%s ↔ %i", (iso2, geoTargetId) => {
    expect(geoTargetIdFor(iso2)).toBe(geoTargetId);
    expect(countryForGeoTargetId(geoTargetId)).toBe(iso2.toUpperCase());
  });

  it.each(["ZZ", "USA", "U", "", "1A", "u$"])("rejects %j", (iso2) => {
    expect(geoTargetIdFor(iso2)).toBeUndefined();
  });

  it.each([0, 2000, 1840, 2999, 2840.5, -2840])("knows no country for %d", (id) => {
    expect(countryForGeoTargetId(id)).toBeUndefined();
  });

  it("names countries in English", () => {
    expect(countryName("us")).toBe("United States");
    expect(countryName("DE")).toBe("Germany");
  });
});
