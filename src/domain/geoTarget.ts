import countries from "i18n-iso-countries";

/**
 * Market slices are keyed by a geo target id: `2000 + ISO-3166 numeric country code` (SPEC §2:
 * US → 2840, FR → 2250, DE → 2276). `Intl` knows country names but not numeric codes, hence
 * i18n-iso-countries for the alpha-2 ↔ numeric table.
 */
const GEO_TARGET_OFFSET = 2000;

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

/** The geo target id of an ISO-3166 alpha-2 code (any case); undefined for an unknown code. */
export function geoTargetIdFor(iso2: string): number | undefined {
  if (!/^[A-Za-z]{2}$/.test(iso2)) return undefined;
  const numeric = countries.alpha2ToNumeric(iso2.toUpperCase());
  return numeric === undefined ? undefined : GEO_TARGET_OFFSET + Number(numeric);
}

/** The upper-case alpha-2 code of a geo target id; undefined when it names no country. */
export function countryForGeoTargetId(geoTargetId: number): string | undefined {
  if (!Number.isInteger(geoTargetId) || geoTargetId <= GEO_TARGET_OFFSET) return undefined;
  const numeric = String(geoTargetId - GEO_TARGET_OFFSET).padStart(3, "0");
  return countries.numericToAlpha2(numeric) ?? undefined;
}

/** The English name of a country (the upstream's `location_name`), e.g. "United States". */
export function countryName(iso2: string): string {
  return regionNames.of(iso2.toUpperCase()) ?? iso2.toUpperCase();
}
