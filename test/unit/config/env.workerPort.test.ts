import { describe, expect, it } from "vitest";

import { DEFAULT_WORKER_PORT, loadConfig } from "../../../src/config/env.ts";

describe("SERENITY_WORKER_PORT", () => {
  it("defaults to 8081, takes a port or 0 (any free one), and `off` opens none", () => {
    expect(DEFAULT_WORKER_PORT).toBe(8081);
    expect(loadConfig({}).worker.probePort).toBe(8081);
    expect(loadConfig({ SERENITY_WORKER_PORT: "9464" }).worker.probePort).toBe(9464);
    expect(loadConfig({ SERENITY_WORKER_PORT: "0" }).worker.probePort).toBe(0);
    expect(loadConfig({ SERENITY_WORKER_PORT: "off" }).worker.probePort).toBeUndefined();
  });

  it("refuses anything else, naming the variable", () => {
    for (const bad of ["on", "-1", "70000", "80.5"])
      expect(() => loadConfig({ SERENITY_WORKER_PORT: bad })).toThrow(/SERENITY_WORKER_PORT is invalid/);
  });
});
