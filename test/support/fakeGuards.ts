import type { Units } from "../../src/domain/allocation.ts";
import {
  type MeteredWriteGuard,
  needOf,
  type NeedSource,
  type ReleaseReason,
  type SectionWrite,
} from "../../src/domain/meteredWrites.ts";

/** A fake guard from its section and release, with `singleWrite` as the one-write section. */
export function fakeGuard(parts: {
  section<T>(need: NeedSource, work: (write: SectionWrite) => Promise<T>): Promise<T>;
  releaseSurplus(floor: Units, reason: ReleaseReason): Promise<void>;
}): MeteredWriteGuard {
  return {
    section: (need, work) => parts.section(need, work),
    singleWrite: (callSite, need, fn) => parts.section(need, (write) => write(callSite, fn, need)),
    releaseSurplus: (floor, reason) => parts.releaseSurplus(floor, reason),
  };
}

/** The seam with allocation out of the picture: every write simply runs and nothing is released. */
export const passthroughGuard: MeteredWriteGuard = fakeGuard({
  section: async (need, work) => {
    await needOf(need); // its reads still run: they decide what the work writes
    return work((_callSite, fn) => fn());
  },
  releaseSurplus: async () => {},
});
