import type { MeteredWriteGuard, MeteredWriteGuardFactory } from "../domain/meteredWrites.ts";

/**
 * The metered-write seam with allocation out of the picture: every write simply runs and nothing
 * is released. The composition root replaces it with the allocation guard.
 */
export const passthroughGuard: MeteredWriteGuard = {
  write: (_callSite, _need, fn) => fn(),
  releaseSurplus: async () => {},
};

export const passthroughGuardFactory: MeteredWriteGuardFactory = () => passthroughGuard;
