import { describe, expect, it } from "vitest";

import { open, seal } from "../../../src/credentials/sealing.ts";
import { credentialExpiry, credentialTtlMs, jwtExpiry } from "../../../src/credentials/tokenExpiry.ts";
import { defaultRetryDelayMs } from "../../../src/jobs/backoff.ts";
import { classifyJobFailure } from "../../../src/jobs/classifyFailure.ts";
import { defineJobHandler } from "../../../src/jobs/handler.ts";
import { JobError, needsReauth } from "../../../src/jobs/jobError.ts";
import { messageIdFor } from "../../../src/jobs/queue.ts";
import { JobRegistry } from "../../../src/jobs/registry.ts";
import { scrubError } from "../../../src/jobs/scrubError.ts";

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
const messageFor = (code: string) => registry.messageFor(code);

describe("classifyJobFailure", () => {
  it("keeps a JobError's code, retryability and chosen sentence", () => {
    expect(
      classifyJobFailure(new JobError("X", { retryable: true, message: "Chosen." }), messageFor),
    ).toEqual({
      code: "X",
      message: "Chosen.",
      retryable: true,
    });
    expect(classifyJobFailure(new JobError("OWN_CODE"), messageFor)).toEqual({
      code: "OWN_CODE",
      message: "Own sentence.",
      retryable: false,
    });
    expect(classifyJobFailure(needsReauth(), messageFor).code).toBe("NEEDS_REAUTH");
  });

  it("never stores an exception's own text", () => {
    const failure = classifyJobFailure(new Error("secret detail"), messageFor);
    expect(failure).toEqual({ code: "JOB_FAILED", message: "The job failed.", retryable: false });
    expect(classifyJobFailure("a string", messageFor).message).toBe("The job failed.");
    expect(classifyJobFailure(null, messageFor).code).toBe("JOB_FAILED");
  });

  it("uses a well-formed `code` and `retryable: true` of any error, with the API registry's sentence", () => {
    const upstream = Object.assign(new Error("raw body"), { code: "workspaceBusy", retryable: true });
    expect(classifyJobFailure(upstream, messageFor)).toEqual({
      code: "workspaceBusy",
      message: "The workspace is busy; retry shortly.",
      retryable: true,
    });
    const weird = Object.assign(new Error("x"), { code: "has spaces and {json}" });
    expect(classifyJobFailure(weird, messageFor).code).toBe("JOB_FAILED");
  });
});

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

describe("retry ladder", () => {
  it("doubles from 1 s and caps at 60 s", () => {
    expect([1, 2, 3, 4, 7, 8, 30].map(defaultRetryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 60_000, 60_000, 60_000,
    ]);
  });
});

describe("message ids", () => {
  it("are deterministic v4-shaped UUIDs per key", () => {
    expect(messageIdFor("k")).toBe(messageIdFor("k"));
    expect(messageIdFor("k")).not.toBe(messageIdFor("k2"));
    expect(messageIdFor("k")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe("credential expiry", () => {
  const now = new Date("2026-01-01T00:00:00Z");
  it("reads a JWT's exp without verifying, else now + TTL", () => {
    const payload = Buffer.from(JSON.stringify({ exp: 1_800_000_000 })).toString("base64url");
    expect(jwtExpiry(`h.${payload}.s`)?.getTime()).toBe(1_800_000_000_000);
    expect(jwtExpiry("opaque")).toBeUndefined();
    expect(jwtExpiry(`h.${Buffer.from("{not json").toString("base64url")}.s`)).toBeUndefined();
    expect(credentialExpiry("opaque", now, 5_000).getTime()).toBe(now.getTime() + 5_000);
  });

  it("parses SERENITY_CREDENTIAL_TTL with units, falling back to 1 h", () => {
    expect(credentialTtlMs({})).toBe(3_600_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "1500" })).toBe(1500);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "90s" })).toBe(90_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "30m" })).toBe(1_800_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "2h" })).toBe(7_200_000);
    expect(credentialTtlMs({ SERENITY_CREDENTIAL_TTL: "soon" })).toBe(3_600_000);
  });
});

describe("sealing", () => {
  const key = Buffer.alloc(32, 1);
  const binding = { credentialId: "c1", ownerSub: "u1", audience: "upstream" };
  it("round-trips and refuses a changed binding, key or byte", () => {
    const sealed = seal(key, binding, "tok-123456");
    expect(open(key, binding, sealed)).toBe("tok-123456");
    expect(open(key, { ...binding, ownerSub: "u2" }, sealed)).toBeUndefined();
    expect(open(Buffer.alloc(32, 2), binding, sealed)).toBeUndefined();
    const tampered = Buffer.from(sealed);
    tampered[14]! ^= 0xff;
    expect(open(key, binding, tampered)).toBeUndefined();
    expect(open(key, binding, Buffer.alloc(5))).toBeUndefined();
    expect(seal(key, binding, "tok-123456").equals(sealed)).toBe(false);
  });
});

describe("scrubError", () => {
  it("replaces handed-out tokens in message and stack", () => {
    const scrubbed = scrubError(new Error("401 for Bearer abcdefgh12345"), ["abcdefgh12345"]) as {
      message: string;
      stack: string;
    };
    expect(scrubbed.message).toBe("401 for Bearer [redacted]");
    expect(scrubbed.stack).not.toContain("abcdefgh12345");
    const untouched = new Error("x");
    expect(scrubError(untouched, [])).toBe(untouched);
  });
});
