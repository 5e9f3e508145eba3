import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ManualClock } from "../../support/manualClock.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";

/** GET /v2/serenity/upstream-health: what the console shows of the process's gateway probe. */
let t: TestApp;
const clock = new ManualClock(new Date("2026-05-01T10:00:00.000Z"));

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

async function health(token?: string) {
  const response = await t.app.inject({
    method: "GET",
    url: "/v2/serenity/upstream-health",
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.statusCode, body: response.json() as Record<string, unknown> };
}

describe("the upstream health route", () => {
  it("needs a signed-in caller, any one", async () => {
    expect((await health()).status).toBe(401);
    expect((await health(await t.token({ sub: "member-of-nothing" }))).status).toBe(200);
  });

  it("says 'not checked yet' before the first probe, then the last probe and since when it holds", async () => {
    const token = await t.token({ sub: "operator" });
    expect((await health(token)).body).toEqual({ reachable: null, checkedAt: null, since: null });

    t.events.emit("gateway.health", { reachable: true });
    clock.advance(30_000);
    t.events.emit("gateway.health", { reachable: true });
    expect((await health(token)).body).toEqual({
      reachable: true,
      checkedAt: "2026-05-01T10:00:30.000Z",
      since: "2026-05-01T10:00:00.000Z",
    });

    clock.advance(30_000);
    t.events.emit("gateway.health", { reachable: false });
    clock.advance(30_000);
    t.events.emit("gateway.health", { reachable: false });
    expect((await health(token)).body).toEqual({
      reachable: false,
      checkedAt: "2026-05-01T10:01:30.000Z",
      since: "2026-05-01T10:01:00.000Z",
    });
  });
});
