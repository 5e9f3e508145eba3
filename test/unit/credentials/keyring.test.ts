import { randomBytes } from "node:crypto";

import { describe, expect, it } from "vitest";

import { keyringOf, openWithKeyring, sealUnderCurrent } from "../../../src/credentials/keyring.ts";
import { seal } from "../../../src/credentials/sealing.ts";

const binding = { credentialId: "c-1", ownerSub: "user-1", audience: "upstream" };
const oldKey = randomBytes(32);
const newKey = randomBytes(32);

describe("the credential keyring", () => {
  it("seals under the current key only", () => {
    const sealed = sealUnderCurrent({ current: newKey, previous: [oldKey] }, binding, "token-1");
    expect(openWithKeyring(keyringOf(newKey), binding, sealed)).toEqual({ token: "token-1", current: true });
    expect(openWithKeyring(keyringOf(oldKey), binding, sealed)).toBeUndefined();
  });

  it("opens bytes sealed under a previous key and says they are not current", () => {
    const sealed = seal(oldKey, binding, "token-1");
    expect(
      openWithKeyring({ current: newKey, previous: [randomBytes(32), oldKey] }, binding, sealed),
    ).toEqual({
      token: "token-1",
      current: false,
    });
  });

  it("refuses bytes whose key left the ring", () => {
    const sealed = seal(oldKey, binding, "token-1");
    expect(openWithKeyring({ current: newKey, previous: [] }, binding, sealed)).toBeUndefined();
  });

  it("still binds the bytes to their row under a previous key", () => {
    const sealed = seal(oldKey, binding, "token-1");
    const ring = { current: newKey, previous: [oldKey] };
    expect(openWithKeyring(ring, { ...binding, ownerSub: "user-2" }, sealed)).toBeUndefined();
  });
});
