import { describe, expect, it } from "vitest";

import { resolveGatewayOrigins } from "../../../src/runtime/gatewayOrigins.ts";

describe("resolveGatewayOrigins", () => {
  const configured = {
    gateway: { projectsBaseUrl: "https://pe.example", usersBaseUrl: "https://um.example" },
  };

  it("a configured gateway wins and the simulator is not started", async () => {
    let started = 0;
    const resolved = await resolveGatewayOrigins(configured, async () => {
      started += 1;
      return { baseUrl: "http://127.0.0.1:1", close: async () => undefined };
    });
    expect(resolved.source).toBe("config");
    expect(resolved.origins).toEqual(configured.gateway);
    expect(started).toBe(0);
  });

  it("with no gateway configured, points both gateways at the started simulator and closes it", async () => {
    let closed = 0;
    const resolved = await resolveGatewayOrigins({ gateway: undefined }, async () => ({
      baseUrl: "http://127.0.0.1:4010",
      close: async () => {
        closed += 1;
      },
    }));
    expect(resolved.source).toBe("simulator");
    expect(resolved.origins).toEqual({
      projectsBaseUrl: "http://127.0.0.1:4010",
      usersBaseUrl: "http://127.0.0.1:4010",
    });
    await resolved.close();
    expect(closed).toBe(1);
  });

  it("with neither, there is no gateway", async () => {
    const resolved = await resolveGatewayOrigins({ gateway: undefined });
    expect(resolved).toMatchObject({ origins: undefined, source: "none" });
  });
});
