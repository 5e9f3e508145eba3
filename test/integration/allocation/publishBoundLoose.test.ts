import { describe, expect, it } from "vitest";

import { publishWindowOf } from "../../../src/allocation/publishBound.ts";
import { withPublishRecording } from "../../../src/allocation/publishRecorder.ts";
import { findLastPublish } from "../../../src/db/allocation/findLastPublish.ts";
import type { Need } from "../../../src/domain/allocation.ts";
import type { SectionWrite } from "../../../src/domain/meteredWrites.ts";
import { type AllocationWorld, allocationWorldPerTest, TOKEN } from "../../support/allocationWorld.ts";
import { ManualClock } from "../../support/manualClock.ts";

/**
 * A chain of create-and-publish / delete sections on one sub-workspace inside one publish-lag
 * window (docs/decisions/0030, addendum) — what the lifecycle race does to a brand: every publish
 * raises the chained bound by the project it moved, no delete lowers it. The bound stays a true
 * upper bound, but the guard must not take units by it: after the first delete it is loose, and
 * the next section plans from the read as upstream gives it (here: nothing used), not from the
 * bound (five projects). Real HTTP against the simulator, `used` lagging every publish.
 */

const worlds = allocationWorldPerTest();

describe("a delete inside the publish window loosens the bound", () => {
  it("the guard plans from the read, not from a bound create/delete chains inflated; the chain stays bounded for releases", async () => {
    const clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
    const t = await worlds.start({ clock, settings: { usedLagReads: 1_000 } });
    const ws = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const gateway = withPublishRecording(t.client, {
      db: worlds.db.db,
      clock,
      logger: t.deps.logger,
      env: t.env,
    });
    const window = publishWindowOf(t.deps);
    /** One section: a project created and published, then deleted (with the guard's release). */
    const createPublishDelete = async () => {
      let projectId = "";
      await t.guardFor(ws).section({ projects: 1 }, async (write) => {
        projectId = await write("projectCreate", () => t.createProject(ws), { projects: 1 });
        await gateway.projects.patchProject(TOKEN, ws, projectId, { primaryUrl: "https://brand.example/" });
        await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
      });
      await gateway.projects.deleteProject(TOKEN, ws, projectId);
      await t.guardFor(ws).releaseSurplus({ projects: 1, prompts: 100 }, "release");
      clock.advance(1_000);
    };

    await createPublishDelete();
    // One publish: its bound is the project it moved; the delete after it made the bound loose.
    expect(await findLastPublish(worlds.db.db, ws, window)).toMatchObject({
      inWindow: true,
      bound: { used: { projects: 1, prompts: 0 } },
      boundLoose: true,
    });
    for (let round = 0; round < 4; round++) await createPublishDelete();
    // Five publishes chained in one window: the bound counts five projects, none is used.
    const chained = await findLastPublish(worlds.db.db, ws, window);
    expect(chained).toMatchObject({ inWindow: true, bound: { used: { projects: 5 } }, boundLoose: true });
    expect((await t.totals(ws)).projects).toBe(1);

    // The next section needs one project: the read (0 used) says it fits — no top-up to six.
    await t.clearCalls();
    await createPublishDelete();
    expect((await t.calls()).filter((call) => call.endsWith("/resources/transfer"))).toEqual([]);
    expect((await t.totals(ws)).projects).toBe(1);

    // Past the window the chain is over: the next publish starts a tight bound of its own.
    clock.advance(window.publishLagMs);
    await t.guardFor(ws).section({ projects: 1 }, async (write) => {
      const projectId = await write("projectCreate", () => t.createProject(ws), { projects: 1 });
      await gateway.projects.patchProject(TOKEN, ws, projectId, { primaryUrl: "https://brand.example/" });
      await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
    });
    expect(await findLastPublish(worlds.db.db, ws, window)).toMatchObject({
      inWindow: true,
      bound: { used: { projects: 1 } },
      boundLoose: false,
    });
  });

  it("a section's publish window runs from after its call: the lease's release restarts it", async () => {
    const clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
    const t = await worlds.start({ clock });
    const ws = await t.newSubWorkspace({ projects: 1, prompts: 100 });
    const recordedAt = clock.now().getTime();
    await t.guardFor(ws).section({ projects: 1 }, async (write) => {
      const projectId = await write("projectCreate", () => t.createProject(ws), { projects: 1 });
      await t.client.projects.patchProject(TOKEN, ws, projectId, { primaryUrl: "https://brand.example/" });
      await write("publish", async () => {
        const answer = await t.client.projects.publishProject(TOKEN, ws, projectId);
        clock.advance(5_000); // the call took five seconds: upstream's lag may start at its end
        return answer;
      });
    });
    const publish = await findLastPublish(worlds.db.db, ws, publishWindowOf(t.deps));
    expect(publish?.publishedAt.getTime()).toBe(recordedAt + 5_000);
    expect(publish?.bound).toBeDefined();
  });

  it("a model added while a section worked out its need leaves that section's publish without a basis", async () => {
    const clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
    const t = await worlds.start({ clock, settings: { usedLagReads: 1_000 } });
    const ws = await t.newSubWorkspace({ projects: 3, prompts: 300 });
    const gateway = withPublishRecording(t.client, {
      db: worlds.db.db,
      clock,
      logger: t.deps.logger,
      env: t.env,
    });
    const projectId = await t.createProject(ws);
    await gateway.projects.patchProject(TOKEN, ws, projectId, { primaryUrl: "https://brand.example/" });
    const assigned = new Set(
      (await t.client.projects.listProjectAiModels(TOKEN, ws, projectId)).map((item) => item.model.id),
    );
    const models = (await t.client.projects.listAiModels(TOKEN)).items
      .map((model) => model.id)
      .filter((id) => !assigned.has(id));
    let counter = 0;
    /** A prompt write of `texts` texts whose need is worked out from the model count it reads. */
    const promptWrite = (texts: number, afterNeed: () => Promise<void> = async () => {}) =>
      t.guardFor(ws).section(
        async () => {
          const count = (await gateway.projects.listProjectAiModels(TOKEN, ws, projectId)).length;
          await afterNeed();
          return { prompts: texts * count };
        },
        async (write) => {
          await write("promptCreate", () =>
            gateway.projects.createPrompts(TOKEN, ws, projectId, {
              texts: Array.from({ length: texts }, () => `prompt ${++counter}`),
              createdBy: "test",
            }),
          );
          await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
        },
      );
    const window = () => publishWindowOf(t.deps);

    // Alone, the write's publish carries its basis.
    await promptWrite(5);
    expect((await findLastPublish(worlds.db.db, ws, window()))?.bound).toBeDefined();
    clock.advance(window().publishLagMs);

    // A section whose need counts what another may change (a model add stages one unit per text)
    // works it out under the lock: a prompt write holding the lock first is counted.
    const writingFirst = heldSection(t, ws, { prompts: 5 }, async (write) => {
      await write("promptCreate", () =>
        gateway.projects.createPrompts(TOKEN, ws, projectId, {
          texts: Array.from({ length: 3 }, () => `prompt ${++counter}`),
          createdBy: "test",
        }),
      );
    });
    await writingFirst.held;
    const textsSeen: number[] = [];
    const countTexts = async () =>
      (await t.client.projects.listPrompts(TOKEN, ws, projectId, { draft: true, limit: 200 })).items.length;
    const textsBefore = await countTexts();
    const replacing = t.guardFor(ws).section(
      async () => {
        textsSeen.push(await countTexts());
        return { prompts: textsSeen[0]! };
      },
      async (write) => {
        await write("modelAdd", () => t.client.projects.addProjectAiModel(TOKEN, ws, projectId, models[1]!), {
          prompts: textsSeen[0]!,
        });
        await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
      },
      { needUnderLock: true },
    );
    writingFirst.release();
    await Promise.all([writingFirst.done, replacing]);
    expect(textsSeen).toEqual([textsBefore + 3]);
    clock.advance(window().publishLagMs);
    // A model add holds the lock; a prompt write works its need out meanwhile (from the models it
    // sees), then waits for the lock; the add lands first, so the write stages one model's worth more.
    const adding = heldSection(t, ws, { prompts: 50 }, async (write) => {
      await write("modelAdd", () => t.client.projects.addProjectAiModel(TOKEN, ws, projectId, models[0]!));
      await write("publish", () => gateway.projects.publishProject(TOKEN, ws, projectId));
    });
    await adding.held;
    let needDone!: () => void;
    const needWorkedOut = new Promise<void>((resolve) => (needDone = resolve));
    const writing = promptWrite(5, async () => needDone());
    await needWorkedOut;
    adding.release();
    await Promise.all([adding.done, writing]);
    // Its publish is recorded without a basis: rebalancing and releases keep the conservative rule.
    expect((await findLastPublish(worlds.db.db, ws, window()))?.bound).toBeUndefined();
  });
});

/**
 * A guarded section that holds the sub-workspace's lock until `release()` before it runs `work`:
 * `held` resolves once it holds the lock, `done` when it has finished.
 */
function heldSection(
  t: AllocationWorld,
  ws: string,
  need: Need,
  work: (write: SectionWrite) => Promise<void>,
): { held: Promise<void>; release: () => void; done: Promise<void> } {
  let holds!: () => void;
  const held = new Promise<void>((resolve) => (holds = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = t.guardFor(ws).section(need, async (write) => {
    holds();
    await released;
    await work(write);
  });
  return { held, release, done };
}
