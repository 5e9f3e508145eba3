import fc from "fast-check";

import { DEACTIVATION_FLOOR, RELEASE_FLOOR } from "../../src/domain/allocation.ts";

/**
 * The operations both pool-conservation properties mix in, whatever upstream they run against (the
 * in-memory model or the simulator): a release to one of the §7 floors, and an ensure of a need.
 */
export function releaseAndEnsureOps(wsArb: fc.Arbitrary<number>) {
  return [
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("release" as const),
        ws: wsArb,
        floor: fc.constantFrom({ ...RELEASE_FLOOR }, { ...DEACTIVATION_FLOOR }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("ensure" as const),
        ws: wsArb,
        need: fc.record({
          projects: fc.integer({ min: 0, max: 2 }),
          prompts: fc.integer({ min: 0, max: 150 }),
        }),
      }),
    },
  ];
}
