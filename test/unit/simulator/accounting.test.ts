import { describe, expect, it } from "vitest";

import { publishUnits, readResources } from "../../../src/simulator/accounting.ts";
import { resolveSettings } from "../../../src/simulator/settings.ts";
import { newWorkspace } from "../../../src/simulator/store/simulatorStore.ts";
import type { SimProject } from "../../../src/simulator/store/types.ts";

/** A workspace with 5 prompts staged in one project, published at t = 1,000. */
function publishedAt1000(settings: Parameters<typeof resolveSettings>[0]) {
  const workspace = newWorkspace({
    id: "ws",
    title: "ws",
    parentId: "parent",
    createdAt: 0,
    resources: { projects: { used: 1, drafted: 0, total: 1 }, prompts: { used: 0, drafted: 5, total: 10 } },
  });
  const project = { staged: { projects: 0, prompts: 5 }, published: { projects: 1, prompts: 0 } };
  publishUnits(workspace, project as unknown as SimProject, resolveSettings(settings), 1_000);
  return workspace;
}

describe("the simulator's used lag after a publish", () => {
  it("a read budget alone hides the published units for that many reads, however late they come", () => {
    const workspace = publishedAt1000({ usedLagReads: 2 });
    expect(readResources(workspace, 100_000, true).prompts.used).toBe(0);
    expect(readResources(workspace, 200_000, true).prompts.used).toBe(0);
    expect(readResources(workspace, 200_001, true).prompts.used).toBe(5);
  });

  it("usedLagMaxMs ends the lag at publish + bound, whatever reads are left", () => {
    const workspace = publishedAt1000({ usedLagReads: 5, usedLagMaxMs: 30_000 });
    expect(readResources(workspace, 1_000, true).prompts.used).toBe(0);
    expect(readResources(workspace, 30_999, true).prompts.used).toBe(0);
    expect(readResources(workspace, 31_000, true).prompts.used).toBe(5);
    // Once over, it stays over (the pending units are gone).
    expect(readResources(workspace, 31_001, true).prompts).toEqual({ used: 5, drafted: 0, total: 10 });
  });

  it("usedLagMaxMs also cuts a millisecond lag longer than itself", () => {
    const workspace = publishedAt1000({ usedLagMs: 60_000, usedLagMaxMs: 30_000 });
    expect(readResources(workspace, 30_999, false).prompts.used).toBe(0);
    expect(readResources(workspace, 31_000, false).prompts.used).toBe(5);
  });
});
