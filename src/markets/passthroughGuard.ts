import {
  type MeteredWriteGuard,
  type MeteredWriteGuardFactory,
  meteredWriteGuardOf,
} from "../domain/meteredWrites.ts";

/**
 * The metered-write seam with allocation out of the picture: every write simply runs and nothing
 * is released. The composition root replaces it with the allocation guard.
 */
export const passthroughGuard: MeteredWriteGuard = meteredWriteGuardOf({
  section: (_need, work) => work((_callSite, fn) => fn()),
  releaseSurplus: async () => {},
});

export const passthroughGuardFactory: MeteredWriteGuardFactory = () => passthroughGuard;
