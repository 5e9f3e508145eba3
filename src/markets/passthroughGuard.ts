import {
  type MeteredWriteGuard,
  type MeteredWriteGuardFactory,
  meteredWriteGuardOf,
  needOf,
} from "../domain/meteredWrites.ts";

/**
 * The metered-write seam with allocation out of the picture: every write simply runs and nothing
 * is released. The composition root replaces it with the allocation guard.
 */
export const passthroughGuard: MeteredWriteGuard = meteredWriteGuardOf({
  section: async (need, work) => {
    await needOf(need); // its reads still run: they decide what the work writes
    return work((_callSite, fn) => fn());
  },
  releaseSurplus: async () => {},
});

export const passthroughGuardFactory: MeteredWriteGuardFactory = () => passthroughGuard;
