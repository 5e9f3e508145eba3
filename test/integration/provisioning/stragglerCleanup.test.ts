import { describe, expect, it } from "vitest";

import {
  type AsyncProvisioningWorld,
  pointerOf,
  useAsyncProvisioningWorld,
} from "../../support/asyncProvisioningWorld.ts";
import { uniqueName } from "../../support/provisioningWorld.ts";

/**
 * The cleanup of a cancelled or spent attempt never empties a workspace that is claimed by now —
 * including by a newer attempt of the SAME brand (spec/provisioning.md §5 "Cleanup", §8). The
 * workspace is titled with the brand name, so the next attempt adopts it by title; the old
 * attempt's delayed hop must leave it alone. Found by an adversarial review: before the fix the
 * straggler hop deleted the live project of the re-activated brand.
 */
let w: AsyncProvisioningWorld;
useAsyncProvisioningWorld((world) => (w = world));

const usEn = { market: "US", languageCode: "en" };

describe("straggler cleanup", () => {
  it("a cancelled attempt's delayed hop leaves alone the workspace the next attempt adopted and promoted", async () => {
    await w.setSettings({ settleMode: "reads", settleReads: 1 });
    const created = await w.call("POST", w.brandsUrl(), {
      name: uniqueName("Brand"),
      domain: "brand.example",
      semrushMarket: usEn,
      async: true,
    });
    expect(created.status).toBe(202);
    const brandId = created.body.id as string;
    // A1, hop 1: creates X, records it, reads "not ready", requeues hop 2 with a delay.
    await w.pollOnce();
    const x = (await w.brand(brandId)).provisioningCandidateWorkspaceId!;
    expect(x).toEqual(expect.any(String));

    const deactivated = await w.call("POST", `${w.brandsUrl()}/${brandId}/serenity/deactivate`);
    expect(deactivated.status).toBe(200);
    const activated = await w.call("POST", `${w.brandsUrl()}/${brandId}/serenity/activate`, {
      markets: [usEn],
      async: true,
    });
    expect(activated.status).toBe(202);

    // Only A2's jobs are due (A1's hop 2 is still delayed): A2 adopts X by title, promotes it and
    // its chained job creates the market's project in X.
    for (let round = 0; round < 4; round++) await w.pollOnce();
    const live = await w.brand(brandId);
    expect(live).toMatchObject({ status: "active", provisioningStatus: "ready" });
    expect(pointerOf(live)).toBe(x);
    expect(await w.projectsOf(x)).toBe(1);

    // A1's straggler hop 2 runs now: superseded, and X is claimed by the brand's new attempt.
    await w.drain();
    const end = await w.brand(brandId);
    expect(end).toMatchObject({ status: "active", provisioningStatus: "ready", subWorkspaceId: x });
    expect(await w.projectsOf(x)).toBe(1);
  });
});
