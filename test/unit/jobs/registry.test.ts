import { describe, expect, it } from "vitest";

import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobRegistry } from "../../../src/jobs/registry.ts";

const registry = new JobRegistry().registerHandler(
  defineJobHandler({
    type: "t",
    publicType: "tPublic",
    family: "provisioning",
    timeoutMs: 10,
    leaseTtlMs: 20,
    maxAttempts: 2,
    errorMessages: { OWN_CODE: "Own sentence." },
    async handle() {
      return {};
    },
  }),
);

describe("registry", () => {
  it("rejects a lease that does not outlive the timeout, bad attempts and duplicates", () => {
    const base = {
      type: "a",
      publicType: "a",
      timeoutMs: 100,
      leaseTtlMs: 200,
      maxAttempts: 1,
      handle: async () => ({}),
    };
    expect(() => new JobRegistry().registerHandler({ ...base, leaseTtlMs: 100 })).toThrow(/leaseTtlMs/);
    expect(() => new JobRegistry().registerHandler({ ...base, maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => new JobRegistry().registerHandler(base).registerHandler(base)).toThrow(/already/);
  });

  it("names public types and families; an unknown type shows as stored", () => {
    expect(registry.publicTypeOf("t")).toBe("tPublic");
    expect(registry.publicTypeOf("zzz")).toBe("zzz");
    expect(registry.familyOf("t")).toBe("provisioning");
    expect(registry.maxAttemptsOf("zzz")).toBe(5);
  });
});
