import { type OrgMetering, UNKNOWN_METERING } from "../../domain/metering.ts";

/** An entry's `metering` / `metering_as_of` columns as an org's metering (NULL = unknown). */
export function meteringFromRecord(
  metering: string | null | undefined,
  asOf: Date | string | null | undefined,
): OrgMetering {
  if ((metering !== "metered" && metering !== "unmetered") || !asOf) return UNKNOWN_METERING;
  return { state: metering, asOf: new Date(asOf) };
}
