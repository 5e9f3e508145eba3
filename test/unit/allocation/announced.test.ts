import { describe, expect, it } from "vitest";

import { announced, ANNOUNCEMENT_HOLD_MS, type AnnouncementHold } from "../../../src/allocation/announced.ts";
import { createLogger } from "../../../src/observability/logger.ts";
import { LogCapture } from "../../support/logCapture.ts";
import { ManualClock } from "../../support/manualClock.ts";

/** An announcement that records what happened, in order; `fail` makes a step throw. */
function recorder(fail: { begin?: boolean; end?: boolean } = {}) {
  const steps: string[] = [];
  const holds: AnnouncementHold[] = [];
  return {
    steps,
    holds,
    announcement: {
      what: "a model add",
      fields: { subWorkspaceId: "sw-1" },
      begin: async (hold: AnnouncementHold) => {
        holds.push(hold);
        steps.push("begin");
        if (fail.begin) throw new Error("begin could not be written");
      },
      end: async () => {
        steps.push("end");
        if (fail.end) throw new Error("end could not be written");
      },
    },
  };
}

function deps() {
  const logs = new LogCapture();
  return { logs, clock: new ManualClock(), logger: createLogger({ level: "warn", destination: logs }) };
}

describe("announced: one announce-and-hold rule for model adds and lowerings", () => {
  it("begins before the call, on the database's clock with the hold, and ends after its answer", async () => {
    const d = deps();
    const r = recorder();
    const answer = await announced(d, r.announcement, async () => {
      r.steps.push("send");
      return 42;
    });
    expect(answer).toBe(42);
    expect(r.steps).toEqual(["begin", "send", "end"]);
    expect(r.holds).toEqual([{ now: d.clock.databaseTime(), holdMs: ANNOUNCEMENT_HOLD_MS }]);
  });

  it("ends a call that failed, and the caller sees the call's own error", async () => {
    const d = deps();
    const r = recorder();
    await expect(
      announced(d, r.announcement, async () => {
        r.steps.push("send");
        throw new Error("upstream refused");
      }),
    ).rejects.toThrow("upstream refused");
    expect(r.steps).toEqual(["begin", "send", "end"]);
  });

  it("does not send a call whose announcement could not be written", async () => {
    const d = deps();
    const r = recorder({ begin: true });
    await expect(
      announced(d, r.announcement, async () => {
        r.steps.push("send");
      }),
    ).rejects.toThrow("begin could not be written");
    expect(r.steps).toEqual(["begin"]);
  });

  it("an end that could not be written is logged, not thrown: the hold ends it", async () => {
    const d = deps();
    const r = recorder({ end: true });
    expect(await announced(d, r.announcement, async () => "sent")).toBe("sent");
    expect(r.steps).toEqual(["begin", "end"]);
    expect(d.logs.lines).toHaveLength(1);
    expect(JSON.parse(d.logs.lines[0]!)).toMatchObject({
      level: 40,
      msg: "allocation: could not end the announcement of a model add",
      subWorkspaceId: "sw-1",
    });
  });
});
