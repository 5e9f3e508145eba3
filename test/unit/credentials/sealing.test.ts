import { describe, expect, it } from "vitest";

import { open, seal } from "../../../src/credentials/sealing.ts";

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
